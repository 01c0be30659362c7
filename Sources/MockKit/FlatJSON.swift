import MockHTTP
import MockSupport

extension Response {
    /// A flat JSON object of string members in the order given, `/` unescaped.
    public static func json(_ status: Int, _ members: KeyValuePairs<String, String>) -> Response {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        for (key, value) in members {
            writer.key(key)
            writer.string(value)
        }
        writer.endObject()
        return .json(status, writer.bytes)
    }
}
