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
        let body = ArrivedFields(request)
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

    /// The first `listedNames` names, each shortened, then how many more: a body may hold
    /// millions of fields, and a reason is one line.
    static func list(_ names: [String]) -> String {
        let listed = names.prefix(listedNames).map { "`\(shortened($0))`" }.joined(separator: ", ")
        let more = names.count - listedNames
        return more > 0 ? "\(listed) and \(more) more" : listed
    }

    static let listedNames = 20

    static func shortened(_ text: String) -> String {
        text.count > 40 ? text.prefix(40) + "…" : text
    }
}

/// The fields a request body brought, by the encoding it came in.
struct ArrivedFields {
    enum Encoding { case empty, json, invalidJSON, jsonNotObject, form, multipart }

    var encoding: Encoding
    var names: [String] = []
    var contentType: String?

    init(_ request: Request) {
        contentType = request.headers["Content-Type"]
        let body = request.body
        let type = request.mediaType ?? ""
        if body.isEmpty {
            encoding = .empty
        } else if type == "multipart/form-data" {
            encoding = .multipart
            if let boundary = contentType.flatMap(Multipart.boundary(fromContentType:)),
               let parts = Multipart.parse(body, boundary: boundary) {
                names = parts.map(\.name)
            }
        } else if type == "application/json" || type.hasSuffix("+json")
                    || body.first(where: { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }) == UInt8(ascii: "{") {
            switch try? JSONParser.parse(body, maxValues: JSONParser.requestBodyValueLimit) {
            case let .object(object)?:
                encoding = .json
                names = object.members.map(\.key)
            case nil:
                encoding = .invalidJSON
            default:
                encoding = .jsonNotObject
            }
        } else {
            encoding = .form
            names = FormDecoding.pairs(body, malformed: .keepLiteral).map(\.name)
        }
    }

    var description: String {
        let type = contentType.map { "Content-Type: \($0)" } ?? "no Content-Type"
        switch encoding {
        case .empty: return "the body was empty"
        case .invalidJSON: return "the body is not valid JSON (\(type))"
        case .jsonNotObject: return "the body is JSON but not an object (\(type))"
        case .json: return "the body had JSON fields \(fieldList) (\(type))"
        case .form: return "the body had form fields \(fieldList) (\(type))"
        case .multipart: return "the body had multipart fields \(fieldList) (\(type))"
        }
    }

    private var fieldList: String {
        names.isEmpty ? "(none)" : ErrorReason.list(names)
    }
}
