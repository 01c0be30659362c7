import Foundation
import MockHTTP
import MockKit
import MockSupport

/// This API's OpenAPI 3.1 document (served at `/_mock/openapi/cse118.json`) and the HTML page
/// of `/api/v2/api-docs/`, which is built from the document so the two never disagree.
enum CSE118OpenAPI: OpenAPIDescription {
    static let document: [UInt8] = {
        func json(_ schema: String) -> (schema: String, mediaTypes: [String]) { (schema, ["application/json"]) }
        func list(_ item: String) -> String { #"{"type":"array","items":\#(ref(item))}"# }
        /// Every operation on an id can meet a malformed id, a missing token, an unknown one and an invisible resource.
        let onID: [(status: Int, name: String)] = [(400, "BadRequest"), (401, "Unauthorized"), (403, "Forbidden"), (404, "NotFound")]
        let signedIn: [(status: Int, name: String)] = [(401, "Unauthorized"), (403, "Forbidden")]
        let conflict = "Member owns this workspace, or Member already in workspace (nothing changes)"

        var builder = OpenAPIBuilder(
            title: "cse118.com Slack-like API (mock-backend)",
            description: "Workspaces, channels, messages and members of UC Santa Cruz CSE 118, as reproduced by mock-backend. "
                + "Every path is served identically under /api/v2 and /api/v1, with or without a trailing slash; path ids "
                + "and the mid query value are UUIDs matched case-insensitively. Bodies are JSON whatever the Content-Type "
                + "says (an empty body is {}). Every error is {\"message\":…,\"status\":N}, except validation failures "
                + "(400), which carry an errors array. A known path with another method answers 405 with an Allow header "
                + "and {\"message\":\"Method not allowed\",\"status\":405}. Log in with a seeded account (e.g. "
                + "sslug@ucsc.edu / 1234567) and send the accessToken as Authorization: Bearer <token>.",
            security: "bearer")
        builder.securityDescription = "The accessToken of POST /login. Missing header: 401; unknown token: 403."
        builder.servers = [("/api/v2", "current API"), ("/api/v1", "the same API under its Fall 2022 prefix")]
        builder.parameters = [
            "id": ("A UUID, any letter case", #"{"type":"string","format":"uuid"}"#),
            "mid": ("The member id (a UUID, any letter case)", #"{"type":"string","format":"uuid"}"#),
        ]
        builder.bodiesRequired = true
        builder.responseMediaType = "application/json"
        builder.operations = [
            Operation(methods: ["POST"], path: "/login",
                      summary: "Log in with email (any letter case) and password; every login issues a new token",
                      body: json(ref("Credentials")),
                      responses: [(200, "Logged in", ref("LoginAnswer")),
                                  (401, "Unknown email or wrong password: Invalid credentials", ref("Error"))],
                      sharedResponses: [(400, "BadRequest")], secured: false, operationID: "login", tag: "login"),
            Operation(methods: ["GET"], path: "/workspace", summary: "Workspaces the caller owns or is a member of, oldest first",
                      responses: [(200, "The workspaces", list("Workspace"))], sharedResponses: signedIn,
                      operationID: "listWorkspaces", tag: "workspace"),
            Operation(methods: ["POST"], path: "/workspace", summary: "Create a workspace owned by the caller",
                      body: json(ref("NameInput")), responses: [(201, "The new workspace", ref("Workspace"))],
                      sharedResponses: [(400, "BadRequest")] + signedIn, operationID: "createWorkspace", tag: "workspace"),
            Operation(methods: ["DELETE"], path: "/workspace/{id}",
                      summary: "Delete a workspace (owner only) with its channels, messages and memberships",
                      responses: [(200, "The deleted workspace, counts as just before deletion", ref("Workspace"))],
                      sharedResponses: onID, operationID: "deleteWorkspace", tag: "workspace"),
            Operation(methods: ["GET"], path: "/workspace/{id}/channel", summary: "Channels of a visible workspace, oldest first",
                      responses: [(200, "The channels", list("Channel"))], sharedResponses: onID,
                      operationID: "listChannels", tag: "channel"),
            Operation(methods: ["POST"], path: "/workspace/{id}/channel", summary: "Create a channel in a workspace (owner only)",
                      body: json(ref("NameInput")), responses: [(201, "The new channel", ref("Channel"))],
                      sharedResponses: onID, operationID: "createChannel", tag: "channel"),
            Operation(methods: ["GET"], path: "/workspace/{id}/member",
                      summary: "Members of a visible workspace (the owner not included), ordered by name",
                      responses: [(200, "The members", list("Member"))], sharedResponses: onID,
                      operationID: "listWorkspaceMembers", tag: "member"),
            Operation(methods: ["POST"], path: "/workspace/{id}/member", summary: "Add an account to a workspace (owner only); no body",
                      query: [("mid", true)],
                      responses: [(201, "The added member", ref("Member")), (409, conflict, ref("Error"))],
                      sharedResponses: onID, operationID: "addWorkspaceMember", tag: "member"),
            Operation(methods: ["DELETE"], path: "/workspace/{id}/member",
                      summary: "Remove a member from a workspace (owner only); their messages stay", query: [("mid", true)],
                      responses: [(200, "The removed member", ref("Member"))], sharedResponses: onID,
                      operationID: "removeWorkspaceMember", tag: "member"),
            Operation(methods: ["DELETE"], path: "/channel/{id}", summary: "Delete a channel (workspace owner only) with its messages",
                      responses: [(200, "The deleted channel", ref("Channel"))], sharedResponses: onID,
                      operationID: "deleteChannel", tag: "channel"),
            Operation(methods: ["GET"], path: "/channel/{id}/message", summary: "Messages of a visible channel, by posted time",
                      responses: [(200, "The messages", list("Message"))], sharedResponses: onID,
                      operationID: "listMessages", tag: "message"),
            Operation(methods: ["POST"], path: "/channel/{id}/message", summary: "Post a message as the caller (owner or member)",
                      body: json(ref("ContentInput")), responses: [(201, "The new message", ref("Message"))],
                      sharedResponses: onID, operationID: "postMessage", tag: "message"),
            Operation(methods: ["DELETE"], path: "/message/{id}", summary: "Delete a message (its poster or the workspace owner)",
                      responses: [(200, "The deleted message", ref("Message"))], sharedResponses: onID,
                      operationID: "deleteMessage", tag: "message"),
            Operation(methods: ["GET"], path: "/member", summary: "Every account, the caller included, ordered by name",
                      responses: [(200, "The accounts", list("Member"))], sharedResponses: signedIn,
                      operationID: "listMembers", tag: "member"),
            Operation(methods: ["PUT"], path: "/reset",
                      summary: "Restore the caller's fixture workspaces and delete the workspaces they created; nobody else's data changes",
                      responses: [(200, "Done", #"{"type":"object","additionalProperties":false}"#)], sharedResponses: signedIn,
                      operationID: "reset", tag: "reset"),
            Operation(methods: ["GET"], path: "/api-docs", summary: "This API as a readable HTML page",
                      responses: [(200, "The page", #"{"type":"string"}"#)], secured: false,
                      operationID: "apiDocs", tag: "docs", responseMediaType: "text/html"),
        ]
        let uuid = #"{"type":"string","format":"uuid"}"#
        /// A closed object: express-openapi-validator rejects any other property.
        func object(_ properties: String) -> String {
            let required = CSE118OpenAPI.required(properties)
            return #"{"type":"object","required":[\#(required)],"properties":{\#(properties)},"additionalProperties":false}"#
        }
        let error = ref("Error")
        builder.schemas = [
            ("Credentials", object(#""email":{"type":"string"},"password":{"type":"string"}"#)),
            ("NameInput", object(#""name":{"type":"string","minLength":1,"maxLength":32}"#)),
            ("ContentInput", object(#""content":{"type":"string","minLength":1,"maxLength":1000}"#)),
            ("LoginAnswer", object(#""id":\#(uuid),"name":{"type":"string"},"role":{"type":"string","const":"member"},"accessToken":{"type":"string"}"#)),
            ("Workspace", object(#""id":\#(uuid),"name":{"type":"string"},"#
                                     + #""owner":{"type":"string","format":"uuid","description":"The owner's member id"},"#
                                     + #""channels":{"type":"integer","minimum":0,"description":"Number of channels now in the workspace"}"#)),
            ("Channel", object(#""id":\#(uuid),"name":{"type":"string"},"#
                                   + #""messages":{"type":"integer","minimum":0,"description":"Number of messages now in the channel"}"#)),
            ("Message", object(#""id":\#(uuid),"member":{"type":"string","format":"uuid","description":"The poster's member id"},"#
                                   + #""posted":{"type":"string","format":"date-time","examples":["2023-05-01T12:18:48.000Z"]},"content":{"type":"string"}"#)),
            ("Member", object(#""id":\#(uuid),"name":{"type":"string"}"#)),
            ("Error", object(#""message":{"type":"string"},"status":{"type":"integer"}"#)),
            ("ValidationError", object(#""message":{"type":"string"},"errors":{"type":"array","items":"#
                                           + object(#""path":{"type":"string","examples":["/body/name"]},"message":{"type":"string"},"#
                                                        + #""errorCode":{"type":"string","examples":["minLength.openapi.validation"]}"#)
                                           + #"},"status":{"type":"integer","const":400}"#)),
        ]
        builder.responses = [
            ("BadRequest", "A path id, query parameter or body that breaks the schema (validation envelope), or a body that "
                + #"is not JSON ({"message":"Request body is not valid JSON","status":400})"#,
             #"{"oneOf":[\#(ref("ValidationError")),\#(error)]}"#),
            ("Unauthorized", "No Authorization header: Authorization header required", error),
            ("Forbidden", "Unknown token (Invalid access token), or a visible resource the caller may not change (Only the "
                + "workspace owner may do that; Only the poster or the workspace owner may delete this message)", error),
            ("NotFound", "The resource does not exist or is not visible to the caller (Workspace not found, Channel not found, "
                + "Message not found), or the mid names no account (Member not found) or no member (Member not in workspace)", error),
        ]
        return builder.build()
    }()

    /// A readable list of the endpoints, with a link to the full document.
    static func html(base: String) -> String {
        var rows = ""
        if let paths = parsed?.objectValue?["paths"]?.objectValue {
            for (path, item) in paths.members {
                for (method, operation) in item.objectValue?.members ?? [] where method != "parameters" {
                    let summary = operation.objectValue?["summary"]?.stringValue ?? ""
                    rows += "<tr><td><code>\(method.uppercased())</code></td><td><code>\(escape(base + path))</code></td>"
                        + "<td>\(escape(summary))</td></tr>\n"
                }
            }
        }
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>cse118 API</title>
        <style>body{font-family:sans-serif;margin:2em}td{padding:.2em .8em;border-bottom:1px solid #ddd}</style></head>
        <body><h1>cse118.com API (mock-backend)</h1>
        <p>Every path is also served under <code>/api/v1</code>. Log in with <code>POST \(base)/login</code> and send
        <code>Authorization: Bearer &lt;accessToken&gt;</code>. The OpenAPI 3.1 document:
        <a href="/_mock/openapi/cse118.json">/_mock/openapi/cse118.json</a>.</p>
        <table><tr><th>method</th><th>path</th><th>what it does</th></tr>
        \(rows)</table></body></html>

        """
    }

    private static let parsed = try? JSONParser.parse(document)

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
