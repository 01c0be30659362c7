import Foundation
import MockHTTP
import MockSupport

/// Where an endpoint reads its fields from, as its course's server did.
public enum FieldSource: Sendable {
    /// A JSON object body.
    case json
    /// A form (`application/x-www-form-urlencoded`) or multipart body.
    case form
    /// The URL query string; the body is ignored.
    case query
    /// A JSON, form or multipart body, whichever arrived.
    case anyBody
}

/// One-line reasons for people, shared by every course API (docs/admin.md#why-a-request-failed):
/// the wording for the mistakes all of them see. They go to the console and the journal only.
public enum ErrorReason {
    /// `required field `email` missing; the body had form fields password (Content-Type: …)`, and
    /// a word when the fields came in an encoding this endpoint does not read.
    public static func missingField(_ name: String, in request: Request, reads source: FieldSource) -> String {
        "required field `\(name)` missing; " + arrived(in: request, reads: source)
    }

    /// What the request brought where the endpoint looks, and where it looks when the fields came elsewhere.
    public static func arrived(in request: Request, reads source: FieldSource) -> String {
        let body = bodyFields(request)
        if source == .query {
            let names = FormDecoding.pairs(Array((request.query ?? "").utf8), malformed: .keepLiteral).map(\.name)
            let query = names.isEmpty ? "the query string had no fields" : "the query string had \(list(names))"
            guard !request.body.isEmpty else { return query }
            return query + "; this endpoint reads the query string (?name=value), not the body (\(body.description))"
        }
        switch (source, body.encoding) {
        case (.json, .form), (.json, .multipart):
            return "\(body.description), but this endpoint reads a JSON object (Content-Type: application/json)"
        case (.form, .json):
            return "\(body.description), but this endpoint reads form fields (Content-Type: application/x-www-form-urlencoded)"
        default:
            return body.description
        }
    }

    /// The header missing, or not of the expected form (shown shortened, as it arrived).
    public static func authorization(_ request: Request, header: String = "Authorization",
                                     expected: String = "Bearer <token>") -> String {
        guard let value = request.headers[header], !value.isEmpty else {
            return "\(header) header missing; send `\(header): \(expected)` with the token from logging in"
        }
        return "\(header) header malformed: expected `\(expected)`, got `\(shortened(value))`"
    }

    public static let unknownToken = "this server never issued that token or has forgotten it "
        + "(tokens are forgotten at restart and at reset): log in again"

    /// `unknownToken`, or, for a token a `--watch` reload ended, that reload.
    public static func unknownToken(endedBy reload: TokenEndedByReload?) -> String {
        guard let reload else { return unknownToken }
        let at = ISO8601.format(reload.at).dropLast(5) + "Z"  // to the second
        return "the --watch reload of the seed file at \(at) ended this token: its user is no longer in the seed "
            + "(or the seed now gives that user another token): log in again"
    }

    public static let expiredToken = "the token has expired: log in again"

    /// `thread 4 belongs to another user`.
    public static func notYours(_ what: String) -> String {
        "\(what) belongs to another user"
    }

    public static let badCredentials = "no account with that name and password; the seeded accounts are on the index page (GET /)"

    /// The first 20 names, each shortened, then how many more: a body may hold millions of
    /// fields, and a reason is one line.
    static func list(_ names: [String]) -> String {
        let listed = names.prefix(20).map { "`\(shortened($0))`" }.joined(separator: ", ")
        return names.count > 20 ? "\(listed) and \(names.count - 20) more" : listed
    }

    static func shortened(_ text: String) -> String {
        text.count > 40 ? text.prefix(40) + "…" : text
    }

    private enum BodyEncoding { case json, form, multipart, other }

    /// The fields the request body brought, described, and the encoding they came in.
    private static func bodyFields(_ request: Request) -> (encoding: BodyEncoding, description: String) {
        let body = request.body
        let mediaType = request.mediaType ?? ""
        let contentType = request.headers["Content-Type"]
        let type = contentType.map { "Content-Type: \($0)" } ?? "no Content-Type"
        func had(_ encoding: String, _ names: [String]) -> String {
            "the body had \(encoding) fields \(names.isEmpty ? "(none)" : list(names)) (\(type))"
        }
        if body.isEmpty { return (.other, "the body was empty") }
        if mediaType == "multipart/form-data" {
            let boundary = contentType.flatMap(Multipart.boundary(fromContentType:))
            let parts = boundary.flatMap { Multipart.parse(body, boundary: $0) } ?? []
            return (.multipart, had("multipart", parts.map(\.name)))
        }
        if mediaType == "application/json" || mediaType.hasSuffix("+json")
            || body.first(where: { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }) == UInt8(ascii: "{") {
            switch try? JSONParser.parse(body, maxValues: JSONParser.requestBodyValueLimit) {
            case let .object(object)?: return (.json, had("JSON", object.members.map(\.key)))
            case nil: return (.other, "the body is not valid JSON (\(type))")
            default: return (.other, "the body is JSON but not an object (\(type))")
            }
        }
        return (.form, had("form", FormDecoding.pairs(body, malformed: .keepLiteral).map(\.name)))
    }
}
