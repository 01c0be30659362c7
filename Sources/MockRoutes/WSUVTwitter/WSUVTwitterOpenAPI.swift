import MockKit

/// The OpenAPI 3.1 description of WSUV Twitter as this server serves it (`GET /_mock/openapi/wsuv.json`).
/// The scripts take any method; the document lists GET (parameters in the query) and POST (in the
/// body) for each of the 20 paths.
enum WSUVTwitterOpenAPI: OpenAPIDescription {
    static let document: [UInt8] = {
        typealias Responses = [(status: Int, description: String, schema: String?)]
        /// Errors are a status line with the scripts' reason phrase and an empty body.
        func errors(_ statuses: (Int, String)...) -> Responses {
            statuses.map { ($0.0, "\($0.1) (empty body)", nil) }
        }
        let scripts: [(file: String, summary: String, responses: Responses)] = [
            ("get-tweets.cgi",
             "Every tweet (deleted ones included) whose time_stamp is greater than `date` byte by byte, by tweet_id",
             [(200, "The tweets", ref("TweetList"))]),
            ("register.cgi", "Create a user and log it in",
             [(200, "The new session token", ref("Session"))]
                 + errors((400, "A parameter is missing"), (409, "Conflict User Exists: the username is taken"))),
            ("login.cgi", "Log in (keeps a live token) or, with action=logout, log out",
             [(200, "The live session token, or \"0\" after a logout", ref("Session"))]
                 + errors((400, "A parameter is missing or action is not login/logout"), (401, "Wrong password"),
                          (404, "No such user"))),
            ("add-tweet.cgi", "Post a tweet as the logged-in user",
             [(200, "The text as received", ref("TweetAdded"))]
                 + errors((400, "A parameter is missing"), (401, "The token is not the user's live one"), (404, "No such user"))),
            ("del-tweet.cgi", "Soft-delete one of your tweets (text [deleted], stamp bumped)",
             [(200, "The id as sent", ref("TweetDeleted"))]
                 + errors((400, "A parameter is missing"), (401, "The token is not the user's live one"),
                          (403, "The tweet is someone else's"), (404, "No such user or no such tweet"))),
        ]
        func form(_ parameters: [(name: String, required: Bool)]) -> (schema: String, mediaTypes: [String]) {
            let properties = parameters.map { #""\#($0.name)":{"type":"string","minLength":1}"# }.joined(separator: ",")
            let required = parameters.filter(\.required).map { #""\#($0.name)""# }.joined(separator: ",")
            return (#"{"type":"object","properties":{\#(properties)},"required":[\#(required)]}"#,
                    ["application/x-www-form-urlencoded", "multipart/form-data"])
        }

        var builder = OpenAPIBuilder(
            title: "WSUV Twitter (WSU Vancouver CS 458)",
            description: "Five Perl CGI scripts on one store, each at the root and under `/cgi-bin`, `/~cs458/cgi-bin` and "
                + "`/~wcochran/cgi-bin`. Parameters are read as CGI.pm 4.55 read them: POST, PUT and PATCH read a form "
                + "(POST also multipart) body, by a case-sensitive Content-Type prefix, and ignore the query; GET, HEAD and "
                + "DELETE read the query and ignore the body; other methods read nothing. `&` and `;` separate pairs. "
                + "An empty parameter counts as missing; a repeated one keeps its first value. "
                + "Successes are compact JSON (`/` not escaped); errors are the status alone with an empty body.",
            security: nil)
        /// Where the real script died and Apache answered 500.
        func died(_ file: String, method: String) -> [(status: Int, description: String, schema: String?)] {
            var causes: [String] = []
            if method == "POST" { causes.append("a multipart body without a boundary or whose parts never end") }
            if file == "get-tweets.cgi" { causes.append("a date with a NUL byte") }
            if file == "add-tweet.cgi" { causes.append("no tweet_id left after the largest integer") }
            guard !causes.isEmpty else { return [] }
            return errors((500, "Internal Server Error: the script died (" + causes.joined(separator: ", or ") + ")"))
        }
        builder.operations = WSUVTwitterAPI.prefixes.flatMap { prefix in
            scripts.flatMap { script in
                let parameters = WSUVTwitterAPI.parameters[script.file] ?? []
                return [Operation(methods: ["GET"], path: "\(prefix)/\(script.file)", summary: script.summary,
                                  query: parameters, responses: script.responses + died(script.file, method: "GET")),
                        Operation(methods: ["POST"], path: "\(prefix)/\(script.file)", summary: script.summary,
                                  body: form(parameters), responses: script.responses + died(script.file, method: "POST"))]
            }
        }
        let stamp = #"{"type":"string","pattern":"^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$","description":"Local time of the server's zone"}"#
        builder.schemas = [
            ("Tweet", object(#""tweet_id":{"type":"integer"},"username":{"type":"string"},"time_stamp":\#(stamp),"tweet":{"type":"string"},"isdeleted":{"enum":[0,1]}"#)),
            ("TweetList", object(#""tweets":{"type":"array","items":\#(ref("Tweet"))}"#)),
            ("Session", object(#""session_token":{"type":"string","pattern":"^([0-9a-f]{40}|0)$"}"#)),
            ("TweetAdded", object(#""tweet":{"type":"string"}"#)),
            ("TweetDeleted", object(#""tweet_id":{"type":"string"},"isdeleted":{"const":1},"tweet":{"const":"[deleted]"}"#)),
        ]
        return builder.build()
    }()
}
