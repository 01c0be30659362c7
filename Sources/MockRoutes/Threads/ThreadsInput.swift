import MockHTTP
import MockKit
import MockSupport

/// The fields of a request body, read as docs/apis/threads.md#how-requests-are-read says: multipart, JSON or form, chosen by
/// `Content-Type` and, without a JSON type, by a leading `{`. Values are never read from the query.
struct ThreadsInput {
    private var values: [String: String] = [:]

    init(_ request: Request) throws(ThreadsError) {
        let body = request.body
        guard !body.isEmpty else { return }
        let type = request.mediaType ?? ""
        if type == "multipart/form-data" {
            // Unparseable multipart yields no fields; the missing-field error follows.
            guard let contentType = request.headers["Content-Type"],
                  let boundary = Multipart.boundary(fromContentType: contentType),
                  let parts = Multipart.parse(body, boundary: boundary) else { return }
            for part in parts where part.filename == nil {
                values[part.name] = String(decoding: part.body, as: UTF8.self)
            }
        } else if type == "application/json" || type.hasSuffix("+json") || Self.startsWithBrace(body) {
            guard let parsed = try? JSONParser.parse(body, maxValues: JSONParser.requestBodyValueLimit),
                  case let .object(object) = parsed else {
                throw .invalidJSON
            }
            for (key, value) in object.members {
                values[key] = Self.text(of: value)
            }
        } else {
            for pair in FormDecoding.pairs(body, malformed: .keepLiteral) {
                values[pair.name] = pair.value
            }
        }
    }

    private static func startsWithBrace(_ body: [UInt8]) -> Bool {
        body.first { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 } == UInt8(ascii: "{")
    }

    /// Strings as they are, numbers as decimal text (`2.0` is `"2"`); anything else is absent.
    private static func text(of value: JSONValue) -> String? {
        switch value {
        case let .string(text):
            return text
        case let .number(literal):
            if !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return literal }
            guard let number = Double(literal), number.isFinite else { return literal }
            if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
            return String(number)
        default:
            return nil
        }
    }

    /// The longest stored text, in UTF-8 bytes: 16 times the 64 KiB a message must take, far below
    /// what would make every client's thread list heavy.
    static let maxLength = 1 << 20

    /// The value of a field, or the field's 400 when it is absent, empty or only whitespace, or
    /// its 413 when it is over the cap.
    func required(_ name: String, else error: String) throws(ThreadsError) -> String {
        guard let value = values[name], value.contains(where: { !$0.isWhitespace }) else {
            throw .missingField(name: name, message: error)
        }
        guard value.utf8.count <= Self.maxLength else { throw .tooLong(name: name) }
        return value
    }
}
