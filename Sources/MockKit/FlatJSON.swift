import MockHTTP
import MockSupport

extension Response {
    /// A flat JSON object of string members in the order given, `/` unescaped.
    public static func json(_ status: Int, _ members: KeyValuePairs<String, String>) -> Response {
        .json(status, JSONWriter.flatObject(Array(members), escapeSlash: false))
    }
}
