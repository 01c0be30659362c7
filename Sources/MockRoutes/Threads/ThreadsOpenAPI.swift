import MockKit

/// The OpenAPI 3.1 description of the threads API as this server serves it
/// (`GET /_mock/openapi/threads.json`).
enum ThreadsOpenAPI: OpenAPIDescription {
    static let document: [UInt8] = {
        let bodyTypes = ["application/x-www-form-urlencoded", "multipart/form-data", "application/json"]
        /// A field that is absent, empty or only whitespace is missing (400); in a JSON body a number
        /// counts as its decimal text, and `null`, booleans, arrays and objects as absent.
        func fields(_ names: [String]) -> (schema: String, mediaTypes: [String]) {
            let properties = names.map { #""\#($0)":{"type":["string","number"],"pattern":"\\S"}"# }.joined(separator: ",")
            return (ThreadsOpenAPI.object(properties, closed: false), bodyTypes)
        }
        let error = (description: "Error: {\"status\":\"error\",\"message\":…}", schema: ref("Error"))
        func errors(_ statuses: Int...) -> [(status: Int, description: String, schema: String?)] {
            statuses.map { ($0, error.description, error.schema) }
        }

        var builder = OpenAPIBuilder(
            title: "Message threads (UNC Charlotte ITIS/CS 4180)",
            description: "Login, signup, threads and messages with JWT-shaped tokens sent as `Authorization: BEARER <token>` "
                + "(scheme in any letter case). Bodies may be form-urlencoded, multipart or JSON; the query is never read. "
                + "Every answer is compact JSON whose first key is `status` (`ok` or `error`); `/` is written as `\\/`.",
            security: "bearer")
        builder.operations = [
            Operation(methods: ["POST"], path: "/api/login", summary: "Log in; every login returns a new token",
                      body: fields(["email", "password"]),
                      responses: [(200, "The user and a token", ref("Auth"))] + errors(400, 401), secured: false),
            Operation(methods: ["POST"], path: "/api/signup", summary: "Create a user and log in",
                      body: fields(["email", "password", "fname", "lname"]),
                      responses: [(200, "The new user and a token", ref("Auth"))] + errors(400, 409, 500), secured: false),
            Operation(methods: ["GET"], path: "/api/threads", summary: "Every user's threads, by thread_id ascending",
                      responses: [(200, "The threads", ref("ThreadList"))] + errors(401)),
            Operation(methods: ["GET"], path: "/api/thread", summary: "The same threads in the flat 2017-2018 shape",
                      responses: [(200, "The threads", ref("LegacyThreadList"))] + errors(401)),
            Operation(methods: ["POST"], path: "/api/thread/add", summary: "Start a thread", body: fields(["title"]),
                      responses: [(200, "The new thread", ref("ThreadAdded"))] + errors(400, 401, 500)),
            Operation(methods: ["GET", "POST", "DELETE"], path: "/api/thread/delete/{thread_id}",
                      summary: "Delete one of your threads and all its messages",
                      responses: [(200, "Thread deleted", ref("Deleted"))] + errors(401, 403, 404)),
            Operation(methods: ["GET"], path: "/api/messages/{thread_id}",
                      summary: "A thread's messages, newest first (same second: higher message_id first)",
                      responses: [(200, "The messages", ref("MessageList"))] + errors(401, 404)),
            Operation(methods: ["POST"], path: "/api/message/add", summary: "Post a message in any thread",
                      body: fields(["thread_id", "message"]),
                      responses: [(200, "The new message", ref("MessageAdded"))] + errors(400, 401, 404, 500)),
            Operation(methods: ["GET", "POST", "DELETE"], path: "/api/message/delete/{message_id}",
                      summary: "Delete one of your messages",
                      responses: [(200, "Message deleted", ref("Deleted"))] + errors(401, 403, 404)),
        ]
        let stamp = #"{"type":"string","pattern":"^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$","description":"UTC"}"#
        /// A token that listed through `/api/thread` gets the flat shape on messages and adds.
        func either(_ shape: String) -> String {
            #"{"anyOf":[\#(ref(shape)),\#(ref("Legacy" + shape))]}"#
        }
        let object = { (properties: String) in ThreadsOpenAPI.object(properties, closed: false) }
        builder.schemas = [
            ("Error", object(#""status":{"const":"error"},"message":{"type":"string"}"#)),
            ("Auth", object(#""status":{"const":"ok"},"token":{"type":"string"},"user_id":{"type":"integer"},"user_email":{"type":"string"},"user_fname":{"type":"string"},"user_lname":{"type":"string"},"user_role":{"const":"USER"}"#)),
            ("Creator", object(#""fname":{"type":"string"},"lname":{"type":"string"},"user_id":{"type":"integer"}"#)),
            ("Thread", object(#""created_by":\#(ref("Creator")),"thread_id":{"type":"integer"},"title":{"type":"string"},"created_at":\#(stamp)"#)),
            ("Message", object(#""created_by":\#(ref("Creator")),"message_id":{"type":"integer"},"message":{"type":"string"},"created_at":\#(stamp)"#)),
            ("LegacyThread", object(#""id":{"type":"integer"},"user_id":{"type":"integer"},"user_fname":{"type":"string"},"user_lname":{"type":"string"},"title":{"type":"string"},"created_at":\#(stamp)"#)),
            ("ThreadList", object(#""status":{"const":"ok"},"threads":{"type":"array","items":\#(ref("Thread"))}"#)),
            ("LegacyMessage", object(#""id":{"type":"integer"},"user_id":{"type":"integer"},"user_fname":{"type":"string"},"user_lname":{"type":"string"},"message":{"type":"string"},"created_at":\#(stamp)"#)),
            ("LegacyThreadList", object(#""status":{"const":"ok"},"threads":{"type":"array","items":\#(ref("LegacyThread"))}"#)),
            ("ThreadAdded", object(#""status":{"const":"ok"},"thread":\#(either("Thread"))"#)),
            ("MessageList", object(#""status":{"const":"ok"},"messages":{"type":"array","items":\#(either("Message"))}"#)),
            ("MessageAdded", object(#""status":{"const":"ok"},"message":\#(either("Message"))"#)),
            ("Deleted", object(#""status":{"const":"ok"},"message":{"type":"string"}"#)),
        ]
        return builder.build()
    }()
}
