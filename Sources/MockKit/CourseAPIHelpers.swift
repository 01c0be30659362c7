import MockHTTP
import MockSupport

extension CourseAPI {
    /// The command line's settings, as the API was made with them.
    public var options: APIOptions { context.options }

    /// The most rows clients may store in a table whose list answer carries them all, or under one
    /// parent whose answer does (cse118's channels of a workspace): each API's page, "Size limits".
    public static var rowCap: Int { 100_000 }

    /// A flat object of string members in the order given, in this API's JSON style: the answers
    /// too small for a shape of their own (`{"session_token":"…"}`, most error bodies).
    public static func json(object members: KeyValuePairs<String, String>, status: Int = 200) -> Response {
        json(JSONWriter.flatObject(Array(members), escapeSlash: escapesSlash), status: status)
    }
}

extension JSONWriter {
    /// A JSON object of string members in the order given.
    public static func flatObject(_ members: [(key: String, value: String)], escapeSlash: Bool) -> [UInt8] {
        var writer = JSONWriter(escapeSlash: escapeSlash)
        writer.beginObject()
        for (key, value) in members {
            writer.key(key)
            writer.string(value)
        }
        writer.endObject()
        return writer.bytes
    }
}

extension Response {
    /// A flat JSON object of string members in the order given, `/` unescaped.
    public static func json(_ status: Int, _ members: KeyValuePairs<String, String>) -> Response {
        .json(status, JSONWriter.flatObject(Array(members), escapeSlash: false))
    }
}
