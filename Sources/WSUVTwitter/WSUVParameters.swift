import MockHTTP
import MockKit

/// The parameters of one request as CGI.pm handed them to the scripts (contract §1): `POST`, `PUT`
/// and `PATCH` read the body only, every other method the query only; the other source is ignored.
struct WSUVParameters {
    private var values: [String: String] = [:]

    init(_ request: Request) {
        switch request.method {
        case "POST", "PUT", "PATCH":
            readBody(of: request)
        default:
            addForm(Array((request.query ?? "").utf8))
        }
    }

    /// A form (or a body without a type), or the text parts of a multipart body. Any other type,
    /// JSON included, gives no parameters, as CGI.pm filed it under `POSTDATA`.
    private mutating func readBody(of request: Request) {
        switch request.mediaType ?? "" {
        case "", "application/x-www-form-urlencoded":
            addForm(request.body)
        case "multipart/form-data":
            // An unparseable multipart body gives no parameters; the missing-parameter 400 follows.
            guard let contentType = request.headers["Content-Type"],
                  let boundary = Multipart.boundary(fromContentType: contentType),
                  let parts = Multipart.parse(request.body, boundary: boundary) else { return }
            for part in parts where part.filename == nil {
                add(part.name, String(decoding: part.body, as: UTF8.self))
            }
        default:
            break
        }
    }

    private mutating func addForm(_ bytes: [UInt8]) {
        for pair in FormDecoding.pairs(bytes, malformed: .keepLiteral) {
            add(pair.name, pair.value)
        }
    }

    /// A repeated name keeps its first value, even an empty one (CGI.pm's scalar `param`).
    private mutating func add(_ name: String, _ value: String) {
        if values[name] == nil { values[name] = value }
    }

    /// The value, or nil when the parameter is absent or empty (whitespace and `0` are present).
    subscript(name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }
}
