import Foundation
import MockHTTP
import MockKit
import MockSupport

/// One stub (docs/admin.md#stubs): a request to match and the answer, or answers in turn, to give,
/// written by a TA in a JSON file under `Seed/stubs/` or sent to `PUT /_mock/stubs`.
struct Stub: Sendable {
    /// Names the stub in the set, whose lock counts the answers of a sequence by it; set when added.
    var id = 0
    /// `Seed/stubs/courses.json:3:5`, or `PUT /_mock/stubs`.
    var source: String
    var route: RoutePattern
    /// Conditions beyond method and path; every one must hold.
    var query: [(name: String, value: String)] = []
    var headers: [(name: String, value: String)] = []
    var bodyContains: ByteSearch?
    /// The members the request's JSON body must have (StubBodyJSON's rule).
    var bodyJSON: JSONObject?

    /// One answer, or a sequence given in turn; after the last, the last again or (`cycles`) the first.
    var answers: [StubAnswer]
    var cycles = false
    /// Course routes this stub answers in their place: `threads GET /api/threads`.
    var overrides: [String] = []

    /// The place in `answers` the answer after `given` answers takes.
    func answerIndex(after given: Int) -> Int {
        cycles ? given % answers.count : min(given, answers.count - 1)
    }

    /// `503, 503, 200`; a sequence says what comes after its last answer.
    var statusesText: String {
        let statuses = answers.map { String($0.status) }.joined(separator: ", ")
        guard answers.count > 1 else { return statuses }
        return statuses + (cycles ? ", then again from the first" : ", then the last again")
    }
}

struct StubAnswer: Sendable {
    var status: Int
    var reason: String?
    var headers: [(name: String, value: Template)] = []
    var body: Body = .text(Template(""))
    /// Seconds.
    var delay: Double = 0

    enum Body: Sendable {
        /// Inline JSON: substitutions happen inside its strings, so the answer stays valid JSON.
        case json(JSONValue)
        /// Inline text, or a file's text: substitutions go in as they are.
        case text(Template)
        /// A file that is not UTF-8 text, sent as it is.
        case bytes([UInt8])
    }

    func response(path: [String: String], query pairs: [(String, String)]) -> Response {
        let values = Template.Values(path: path, query: pairs)
        var response = Response(status: status, reason: reason)
        let contentType: String
        switch body {
        case let .json(value):
            response.body = Self.substitute(value, values).encoded(escapeSlash: false)
            contentType = Response.jsonType
        case let .text(template):
            response.body = Array(template.render(values).utf8)
            contentType = template.isJSONFile ? Response.jsonType : "text/plain; charset=utf-8"
        case let .bytes(bytes):
            response.body = bytes
            contentType = "application/octet-stream"
        }
        for (name, value) in headers {
            response.headers.add(name, value.render(values, forHeader: true))
        }
        if !response.headers.contains("Content-Type") && !response.body.isEmpty {
            response.headers.add("Content-Type", contentType)
        }
        response.delay = delay
        return response
    }

    private static func substitute(_ value: JSONValue, _ values: Template.Values) -> JSONValue {
        switch value {
        case let .string(text): return .string(Template(text).render(values))
        case let .array(items): return .array(items.map { substitute($0, values) })
        case let .object(object): return .object(JSONObject(object.members.map { ($0.key, substitute($0.value, values)) }))
        default: return value
        }
    }
}

/// Text with `{{path.name}}` and `{{query.name}}` in it.
struct Template: Sendable {
    private enum Piece: Sendable {
        case text(String)
        case path(String)
        case query(String)
    }

    private var pieces: [Piece] = []
    /// Read from a `.json` file: answered as JSON.
    var isJSONFile = false

    struct Values {
        var path: [String: String]
        var query: [(String, String)]
    }

    /// Splits the text; `{{` without a known kind of name stays as it is.
    init(_ text: String) {
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            let piece: Piece? = name.hasPrefix("path.") ? .path(String(name.dropFirst(5)))
                : name.hasPrefix("query.") ? .query(String(name.dropFirst(6))) : nil
            if let piece {
                pieces.append(.text(String(rest[..<open.lowerBound])))
                pieces.append(piece)
            } else {
                pieces.append(.text(String(rest[..<close.upperBound])))
            }
            rest = rest[close.upperBound...]
        }
        pieces.append(.text(String(rest)))
    }

    /// Path parameters the text names, to check them against the stub's path when it loads.
    var pathNames: [String] {
        pieces.compactMap { if case let .path(name) = $0 { return name } else { return nil } }
    }

    /// A missing query parameter becomes empty text. In a header value (`forHeader`), control
    /// characters a request brought are percent-encoded again: a decoded `%0D%0A` would otherwise
    /// end the line and let the client write header lines, or a whole answer, of its own.
    func render(_ values: Values, forHeader: Bool = false) -> String {
        var text = ""
        for piece in pieces {
            let value: String
            switch piece {
            case let .text(literal): text += literal; continue
            case let .path(name): value = values.path[name].flatMap { FormDecoding.percentDecode($0, plusAsSpace: false) } ?? ""
            case let .query(name): value = FormDecoding.last(name, in: values.query) ?? ""
            }
            text += forHeader ? Self.controlsEncoded(value) : value
        }
        return text
    }

    private static func controlsEncoded(_ value: String) -> String {
        guard value.utf8.contains(where: isControl) else { return value }
        var bytes: [UInt8] = []
        for byte in value.utf8 {
            guard isControl(byte) else { bytes.append(byte); continue }
            bytes.append(contentsOf: String(format: "%%%02X", byte).utf8)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Bytes no header value may hold (RFC 9110 field values): C0 controls but tab, and DEL.
    static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }
}
