import MockHTTP

/// The parameters of one request as CGI.pm 4.55 handed them to the scripts (docs/apis/wsuv-twitter.md#how-parameters-are-read):
/// `GET`, `HEAD` and `DELETE` read the query; `POST`, `PUT` and `PATCH` the body, by a
/// `Content-Type` matched case-sensitively and by prefix; any other method reads nothing.
struct WSUVInput {
    /// The form or query the parameters come from, decoded at each lookup (CGIForm.firstValue).
    private var form: [UInt8] = []
    /// Multipart parameters, first value of each name.
    private var parts: [String: String] = [:]
    /// Why CGI.pm read no parameters at all from this request, for the console and the journal.
    private(set) var unreadBecause: String?

    /// Throws the 500 of a multipart body CGI.pm died on.
    init(_ request: Request) throws(WSUVError) {
        switch request.method {
        case "GET", "HEAD", "DELETE":
            form = Array((request.query ?? "").utf8)
        case "POST", "PUT", "PATCH":
            try readBody(of: request)
        default:
            unreadBecause = "CGI.pm reads no parameters for method \(request.method) (GET, HEAD and DELETE read the query, "
                + "POST, PUT and PATCH the body)"
        }
        // CGI.pm erased every parameter when `.defaults` (the reset button of its HTML forms) was
        // true in Perl: anything but empty and `0`.
        if let defaults = self[".defaults"], defaults != "0" {
            form = []
            parts = [:]
            unreadBecause = "CGI.pm erases every parameter when `.defaults` is sent with a value other than empty or 0"
        }
    }

    private mutating func readBody(of request: Request) throws(WSUVError) {
        let contentType = request.headers["Content-Type"]
        let isPost = request.method == "POST"
        if isPost, let contentType, contentType.utf8.starts(with: "multipart/form-data".utf8) {
            guard CGIMultipart.parameters(request.body, contentType: contentType,
                                          hasContentLength: request.headers["Content-Length"] != nil, add: { name, value in
                // A repeated name keeps its first value, even an empty one (CGI.pm's scalar `param`).
                let name = String(decoding: name, as: UTF8.self)
                if parts[name] == nil { parts[name] = String(decoding: value, as: UTF8.self) }
            }) else { throw .scriptDied }
        } else if isPost, contentType == "application/xml" {
            // CGI.pm took this for an XForms submission, whose parameters come from the query.
            form = Array((request.query ?? "").utf8)
        } else if !Self.isForm(contentType) {
            // Any other type became the single parameter POSTDATA (PUTDATA, PATCHDATA), never read. A
            // form type in other letters, or none after `Content-Type:`, is the surprise worth a word.
            if ["", "application/x-www-form-urlencoded", "multipart/form-data"].contains(request.mediaType) {
                unreadBecause = "CGI.pm reads no parameters from a body typed `\(contentType ?? "")` (it takes "
                    + "application/x-www-form-urlencoded… and, on POST, multipart/form-data…, in these letters)"
            }
        } else if request.headers["Content-Length"] == nil {
            // CGI.pm read a body only as long as CONTENT_LENGTH, which a chunked body has not.
            unreadBecause = "CGI.pm reads no body without Content-Length (a chunked body has none)"
        } else {
            form = request.body
        }
    }

    /// No `Content-Type` at all, or one starting with the form type; for `PUT` and `PATCH` also the
    /// multipart type, whose body CGI.pm then split like a form.
    private static func isForm(_ contentType: String?) -> Bool {
        guard let type = contentType?.utf8 else { return true }
        return type.starts(with: "application/x-www-form-urlencoded".utf8) || type.starts(with: "multipart/form-data".utf8)
    }

    /// The value, or nil when the parameter is absent or empty (whitespace and `0` are present).
    /// Bytes that are not UTF-8 become U+FFFD. Names are compared byte for byte: the scripts ask
    /// for ASCII names, which no other string equals.
    subscript(name: String) -> String? {
        guard let value = parts[name] ?? CGIForm.firstValue(named: Array(name.utf8), in: form).map({
            String(decoding: $0, as: UTF8.self)
        }), !value.isEmpty else { return nil }
        return value
    }
}
