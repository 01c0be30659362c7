import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// The cse118 API over real sockets: the graders' fixtures, login and tokens, every permission
/// rule, validation, path forms, the Advanced flows and the per-student reset.
final class CSE118Tests: XCTestCase {
    private var server: TestServer!
    private var client: CSE118Client!
    private var seed: CSE118Seed!

    override func setUpWithError() throws {
        server = try TestServer(apis: ["cse118"], options: cse118Options())
        client = CSE118Client(server: server)
        seed = try CSE118Seed()
    }

    override func tearDown() {
        server = nil
        client = nil
    }

    private var sammy: String { seed.id(CSE118Account.sammy.0) }
    private var molly: String { seed.id(CSE118Account.molly.0) }
    private var anna: String { seed.id(CSE118Account.anna.0) }
    private var will: String { seed.id(CSE118Account.will.0) }

    /// What every student sees first: their three fixture workspaces with the graded channel counts.
    private func fixtureList(of email: String) -> String {
        let student = seed.id(email)
        return "[" + [
            #"{"id":"\#(seed.workspace("Student Workspace", of: email))","name":"Student Workspace","owner":"\#(student)","channels":3}"#,
            #"{"id":"\#(seed.workspace("Molly Workspace", of: email))","name":"Molly Workspace","owner":"\#(molly)","channels":1}"#,
            #"{"id":"\#(seed.workspace("Anna Workspace", of: email))","name":"Anna Workspace","owner":"\#(anna)","channels":2}"#,
        ].joined(separator: ",") + "]"
    }

    private func mollyChannelMessages(of email: String) -> String {
        let ids = seed.messages("Molly Channel", in: "Molly Workspace", of: email)
        return "[" + [
            #"{"id":"\#(ids[0])","member":"\#(molly)","posted":"2023-04-23T10:22:00.000Z","content":"Hello, and welcome to my channel!"}"#,
            #"{"id":"\#(ids[1])","member":"\#(anna)","posted":"2023-05-01T12:18:48.000Z","content":"Thanks Molly :)"}"#,
            #"{"id":"\#(ids[2])","member":"\#(will)","posted":"2023-05-02T14:37:00.000Z","content":"Be not afraid of greatness. Some are born great, some achieve greatness, and others have CSE118 thrust upon them."}"#,
        ].joined(separator: ",") + "]"
    }

    // MARK: Login and tokens

    func testLoginAnswersTheFourKeysAndAJWTShapedToken() throws {
        let response = try client.call("POST", "/login", body: #"{"email":"SSlug@UCSC.edu","password":"1234567"}"#,
                                       headers: [("Authorization", "Bearer ignored-on-login")])
        XCTAssertEqual(response.status, 200)
        let token = try XCTUnwrap(client.json(response)["accessToken"] as? String)
        XCTAssertEqual(response.text, #"{"id":"\#(sammy)","name":"Sammy Slug","role":"member","accessToken":"\#(token)"}"#)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(parts[0], "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9")
        XCTAssertTrue(parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } })
        // Every login issues a new token and the earlier ones keep working.
        let second = try client.login(CSE118Account.sammy)
        XCTAssertNotEqual(second, token)
        XCTAssertEqual(try client.call("GET", "/workspace", token: token).status, 200)
        XCTAssertEqual(try client.call("GET", "/workspace", token: second).status, 200)
    }

    func testLoginFailures() throws {
        let invalid = #"{"message":"Invalid credentials","status":401}"#
        assertCSE118(try client.call("POST", "/login", body: #"{"email":"sslug@ucsc.edu","password":"1234568"}"#), 401, invalid)
        // The password is compared exactly, the email case-insensitively.
        assertCSE118(try client.call("POST", "/login", body: #"{"email":"molly@cse118.com","password":"MOLLY"}"#), 401, invalid)
        assertCSE118(try client.call("POST", "/login", body: #"{"email":"nobody@ucsc.edu","password":"1234567"}"#), 401, invalid)
        assertCSE118(try client.call("POST", "/login", body: #"{"email":"","password":""}"#), 401, invalid)
        let notJSON = #"{"message":"Request body is not valid JSON","status":400}"#
        assertCSE118(try client.call("POST", "/login", body: "email=sslug%40ucsc.edu&password=1234567",
                                     headers: [("Content-Type", "application/x-www-form-urlencoded")]), 400, notJSON)
        assertCSE118(try client.call("POST", "/login", body: #"{"email":"sslug@ucsc.edu""#), 400, notJSON)
        assertCSE118(try client.call("POST", "/login", body: "   "), 400, notJSON)
        // An empty body counts as {}.
        let empty = try client.call("POST", "/login")
        XCTAssertEqual(empty.status, 400)
        XCTAssertEqual(cse118ErrorCodes(empty), ["/body/email required.openapi.validation",
                                                 "/body/password required.openapi.validation"])
        assertCSE118(try client.call("POST", "/login", body: "[]"), 400,
                     cse118Validation("/body", "must be object", "type"))
        // Problems listed as required, type, length, additional property.
        let mixed = try client.call("POST", "/login", body: #"{"zeta":1,"password":7,"alpha":true,"zeta":2}"#)
        XCTAssertEqual(cse118ErrorCodes(mixed), ["/body/email required.openapi.validation",
                                                 "/body/password type.openapi.validation",
                                                 "/body/zeta additionalProperties.openapi.validation",
                                                 "/body/alpha additionalProperties.openapi.validation"])
    }

    /// Unknown properties are listed up to the first 100, so a body of a million keys cannot make
    /// an answer of hundreds of megabytes (found by the session-6 hostile-input hunt).
    func testAtMostTheFirst100UnknownPropertiesAreListed() throws {
        let keys = (0..<5_000).map { #""k\#($0)":1"# }.joined(separator: ",")
        let answer = try client.call("POST", "/login", body: #"{"email":"a","password":"b",\#(keys)}"#)
        XCTAssertEqual(answer.status, 400)
        XCTAssertEqual(cse118ErrorCodes(answer), (0..<100).map { "/body/k\($0) additionalProperties.openapi.validation" })
        let message = try XCTUnwrap(JSONParser.parse(answer.body).objectValue?["message"]?.stringValue)
        XCTAssertTrue(message.hasSuffix(", request/body/k99 must NOT have additional properties"), String(message.suffix(100)))
        XCTAssertEqual(message.components(separatedBy: ", ").count, 100)
    }

    func testTokenErrors() throws {
        let required = #"{"message":"Authorization header required","status":401}"#
        let invalid = #"{"message":"Invalid access token","status":403}"#
        assertCSE118(try client.call("GET", "/workspace"), 401, required)
        assertCSE118(try client.call("GET", "/workspace", headers: [("Authorization", "")]), 401, required)
        let token = try client.login(CSE118Account.sammy)
        for header in ["Bearer", "Bearer ", "Basic \(token)", "Bearer \(token)x", "Bearer\(token)", "garbage", "Bearer a.b.c"] {
            assertCSE118(try client.call("GET", "/workspace", headers: [("Authorization", header)]), 403, invalid)
        }
        // `Bearer` in any case, then one or more spaces.
        XCTAssertEqual(try client.call("GET", "/workspace", headers: [("authorization", "bEARER   \(token)")]).status, 200)
        // The token is checked before anything else about the request.
        assertCSE118(try client.call("DELETE", "/workspace/not-a-uuid"), 401, required)
        assertCSE118(try client.call("POST", "/workspace", body: "{bad", headers: [("Authorization", "Bearer nope")]), 403, invalid)
    }

    // MARK: The graders' fixtures

    func testEveryStudentSeesTheirOwnGradedFixtures() throws {
        for account in [CSE118Account.sammy, CSE118Account.riley, CSE118Account.casey] {
            let token = try client.login(account)
            assertCSE118(try client.call("GET", "/workspace", token: token), 200, fixtureList(of: account.0))
            let molly = seed.channel("Molly Channel", in: "Molly Workspace", of: account.0)
            assertCSE118(try client.call("GET", "/channel/\(molly)/message", token: token), 200,
                         mollyChannelMessages(of: account.0))
            let annaIDs = seed.messages("Anna Channel", in: "Anna Workspace", of: account.0)
            let annaChannel = seed.channel("Anna Channel", in: "Anna Workspace", of: account.0)
            assertCSE118(try client.call("GET", "/channel/\(annaChannel)/message", token: token), 200, "[" +
                #"{"id":"\#(annaIDs[0])","member":"\#(anna)","posted":"2023-04-24T17:05:00.000Z","content":"Hello from Anna!"},"# +
                #"{"id":"\#(annaIDs[1])","member":"\#(seed.id(account.0))","posted":"2023-04-25T09:41:00.000Z","content":"Thanks Anna, lovely to be here."}]"#)
            let studentWorkspace = seed.workspace("Student Workspace", of: account.0)
            let channels = try client.jsonArray(client.call("GET", "/workspace/\(studentWorkspace)/channel", token: token))
            XCTAssertEqual(channels.map { "\($0["name"]!) \($0["messages"]!)" },
                           ["Student Channel 1", "Extra Channel 0", "Another Channel 0"])
            let annaWorkspace = seed.workspace("Anna Workspace", of: account.0)
            let annaChannels = try client.jsonArray(client.call("GET", "/workspace/\(annaWorkspace)/channel", token: token))
            XCTAssertEqual(annaChannels.map { "\($0["name"]!) \($0["messages"]!)" }, ["Anna Channel 2", "Second Anna Channel 0"])
        }
    }

    func testWhatTheOtherAccountsSee() throws {
        let names: (ClientResponse) throws -> [String] = { try self.client.jsonArray($0).map { $0["name"] as? String ?? "" } }
        let molly = try client.login(CSE118Account.molly)
        XCTAssertEqual(try names(client.call("GET", "/workspace", token: molly)), Array(repeating: "Molly Workspace", count: 3))
        let will = try client.login(CSE118Account.will)
        XCTAssertEqual(try names(client.call("GET", "/workspace", token: will)), Array(repeating: "Molly Workspace", count: 3))
        let anna = try client.login(CSE118Account.anna)
        XCTAssertEqual(try names(client.call("GET", "/workspace", token: anna)),
                       ["Molly Workspace", "Anna Workspace", "Molly Workspace", "Anna Workspace", "Molly Workspace", "Anna Workspace"])
        assertCSE118(try client.call("GET", "/workspace", token: client.login(CSE118Account.harrison)), 200, "[]")
    }

    func testMemberLists() throws {
        let token = try client.login(CSE118Account.sammy)
        let everyone = [("Anna Admin", CSE118Account.anna), ("Casey Coast", CSE118Account.casey),
                        ("Dr Harrison", CSE118Account.harrison), ("Molly Member", CSE118Account.molly),
                        ("Riley Redwood", CSE118Account.riley), ("Sammy Slug", CSE118Account.sammy),
                        ("William Shakespeare", CSE118Account.will)]
        assertCSE118(try client.call("GET", "/member", token: token), 200,
                     "[" + everyone.map { #"{"id":"\#(seed.id($0.1.0))","name":"\#($0.0)"}"# }.joined(separator: ",") + "]")
        // The owner is not listed; members see the list too.
        let mollyWorkspace = seed.workspace("Molly Workspace", of: CSE118Account.sammy.0)
        assertCSE118(try client.call("GET", "/workspace/\(mollyWorkspace)/member", token: token), 200,
                     #"[{"id":"\#(anna)","name":"Anna Admin"},{"id":"\#(sammy)","name":"Sammy Slug"},{"id":"\#(will)","name":"William Shakespeare"}]"#)
        let studentWorkspace = seed.workspace("Student Workspace", of: CSE118Account.sammy.0)
        assertCSE118(try client.call("GET", "/workspace/\(studentWorkspace)/member", token: token), 200, "[]")
    }

    // MARK: Permissions

    func testMembersCannotDoWhatOnlyTheOwnerMay() throws {
        let token = try client.login(CSE118Account.sammy)
        let workspace = seed.workspace("Molly Workspace", of: CSE118Account.sammy.0)
        let channel = seed.channel("Molly Channel", in: "Molly Workspace", of: CSE118Account.sammy.0)
        let ownerOnly = #"{"message":"Only the workspace owner may do that","status":403}"#
        assertCSE118(try client.call("DELETE", "/workspace/\(workspace)", token: token), 403, ownerOnly)
        assertCSE118(try client.call("POST", "/workspace/\(workspace)/channel", token: token, body: #"{"name":"Mine"}"#), 403, ownerOnly)
        assertCSE118(try client.call("DELETE", "/channel/\(channel)", token: token), 403, ownerOnly)
        assertCSE118(try client.call("POST", "/workspace/\(workspace)/member?mid=\(seed.id(CSE118Account.harrison.0))", token: token),
                     403, ownerOnly)
        assertCSE118(try client.call("DELETE", "/workspace/\(workspace)/member?mid=\(anna)", token: token), 403, ownerOnly)
        // Nothing changed.
        assertCSE118(try client.call("GET", "/workspace", token: token), 200, fixtureList(of: CSE118Account.sammy.0))
        assertCSE118(try client.call("GET", "/channel/\(channel)/message", token: token), 200, mollyChannelMessages(of: CSE118Account.sammy.0))
    }

    func testOutsidersGetNotFoundForEverything() throws {
        let riley = try client.login(CSE118Account.riley)
        let workspace = seed.workspace("Student Workspace", of: CSE118Account.sammy.0)
        let channel = seed.channel("Molly Channel", in: "Molly Workspace", of: CSE118Account.sammy.0)
        let message = seed.messages("Molly Channel", in: "Molly Workspace", of: CSE118Account.sammy.0)[0]
        let workspaceNotFound = #"{"message":"Workspace not found","status":404}"#
        let channelNotFound = #"{"message":"Channel not found","status":404}"#
        assertCSE118(try client.call("GET", "/workspace/\(workspace)/channel", token: riley), 404, workspaceNotFound)
        assertCSE118(try client.call("POST", "/workspace/\(workspace)/channel", token: riley, body: #"{"name":"x"}"#), 404, workspaceNotFound)
        assertCSE118(try client.call("DELETE", "/workspace/\(workspace)", token: riley), 404, workspaceNotFound)
        assertCSE118(try client.call("GET", "/workspace/\(workspace)/member", token: riley), 404, workspaceNotFound)
        assertCSE118(try client.call("POST", "/workspace/\(workspace)/member?mid=\(sammy)", token: riley), 404, workspaceNotFound)
        assertCSE118(try client.call("GET", "/channel/\(channel)/message", token: riley), 404, channelNotFound)
        assertCSE118(try client.call("POST", "/channel/\(channel)/message", token: riley, body: #"{"content":"hi"}"#), 404, channelNotFound)
        assertCSE118(try client.call("DELETE", "/channel/\(channel)", token: riley), 404, channelNotFound)
        assertCSE118(try client.call("DELETE", "/message/\(message)", token: riley), 404,
                     #"{"message":"Message not found","status":404}"#)
        // Unknown ids answer exactly the same.
        let unknown = "0e4a6f2c-1d3b-4c5e-8f70-9a1b2c3d4e5f"
        assertCSE118(try client.call("GET", "/workspace/\(unknown)/channel", token: riley), 404, workspaceNotFound)
        assertCSE118(try client.call("GET", "/channel/\(unknown)/message", token: riley), 404, channelNotFound)
        // Dr Harrison posted the welcome message but is not in the workspace: not visible to him.
        let welcome = seed.messages("Student Channel", in: "Student Workspace", of: CSE118Account.sammy.0)[0]
        assertCSE118(try client.call("DELETE", "/message/\(welcome)", token: client.login(CSE118Account.harrison)), 404,
                     #"{"message":"Message not found","status":404}"#)
    }

    func testOnlyThePosterOrTheOwnerDeletesAMessage() throws {
        let sammy = try client.login(CSE118Account.sammy)
        let will = try client.login(CSE118Account.will)
        let annaToken = try client.login(CSE118Account.anna)
        let molly = try client.login(CSE118Account.molly)
        let channel = seed.channel("Molly Channel", in: "Molly Workspace", of: CSE118Account.sammy.0)
        let ids = seed.messages("Molly Channel", in: "Molly Workspace", of: CSE118Account.sammy.0)
        let posted = try client.json(client.call("POST", "/channel/\(channel)/message", token: sammy, body: #"{"content":"Mine"}"#))
        let mine = try XCTUnwrap(posted["id"] as? String)
        let refused = #"{"message":"Only the poster or the workspace owner may delete this message","status":403}"#
        assertCSE118(try client.call("DELETE", "/message/\(mine)", token: will), 403, refused)
        assertCSE118(try client.call("DELETE", "/message/\(ids[0])", token: annaToken), 403, refused)
        assertCSE118(try client.call("DELETE", "/message/\(ids[1])", token: sammy), 403, refused)
        // The poster deletes their own; the owner deletes anyone's.
        assertCSE118(try client.call("DELETE", "/message/\(mine)", token: sammy), 200,
                     #"{"id":"\#(mine)","member":"\#(self.sammy)","posted":"2024-02-03T18:04:05.125Z","content":"Mine"}"#)
        assertCSE118(try client.call("DELETE", "/message/\(ids[1])", token: molly), 200,
                     #"{"id":"\#(ids[1])","member":"\#(anna)","posted":"2023-05-01T12:18:48.000Z","content":"Thanks Molly :)"}"#)
        assertCSE118(try client.call("DELETE", "/message/\(ids[1])", token: molly), 404, #"{"message":"Message not found","status":404}"#)
        let welcome = seed.messages("Student Channel", in: "Student Workspace", of: CSE118Account.sammy.0)[0]
        XCTAssertEqual(try client.call("DELETE", "/message/\(welcome)", token: sammy).status, 200)
        let remaining = try client.jsonArray(client.call("GET", "/channel/\(channel)/message", token: will))
        XCTAssertEqual(remaining.compactMap { $0["id"] as? String }, [ids[0], ids[2]])
    }

    // MARK: Validation

    func testPathAndQueryValidation() throws {
        let token = try client.login(CSE118Account.sammy)
        let badID = cse118Validation("/params/id", #"must match format \"uuid\""#, "format")
        // `{id}` matches any segment; a non-UUID is a 400 before any lookup.
        assertCSE118(try client.call("DELETE", "/workspace/abc", token: token), 400, badID)
        assertCSE118(try client.call("GET", "/channel/8f1c2a4e-0c3b-4a57-9d6e-2b1f0c9e7a1/message", token: token), 400, badID)
        assertCSE118(try client.call("DELETE", "/message/8f1c2a4e-0c3b-4a57-9d6e-2b1f0c9e7a1g", token: token), 400, badID)
        // The path comes first, even with a bad query and body.
        assertCSE118(try client.call("POST", "/workspace/abc/channel?x=1", token: token, body: "{"), 400, badID)

        let workspace = seed.workspace("Student Workspace", of: CSE118Account.sammy.0)
        let extra = try client.call("GET", "/workspace?b=1&a=2&b=3", token: token)
        XCTAssertEqual(extra.status, 400)
        XCTAssertEqual(cse118ErrorCodes(extra), ["/query/b additionalProperties.openapi.validation",
                                                 "/query/a additionalProperties.openapi.validation"])
        assertCSE118(try client.call("POST", "/workspace/\(workspace)/member", token: token), 400,
                     cse118Validation("/query/mid", "must have required property 'mid'", "required"))
        assertCSE118(try client.call("DELETE", "/workspace/\(workspace)/member?mid=", token: token), 400,
                     cse118Validation("/query/mid", #"must match format \"uuid\""#, "format"))
        assertCSE118(try client.call("DELETE", "/workspace/\(workspace)/member?mid=will", token: token), 400,
                     cse118Validation("/query/mid", #"must match format \"uuid\""#, "format"))
        let missingAndExtra = try client.call("POST", "/workspace/\(workspace)/member?name=Will", token: token)
        XCTAssertEqual(cse118ErrorCodes(missingAndExtra), ["/query/mid required.openapi.validation",
                                                           "/query/name additionalProperties.openapi.validation"])
        let repeated = try client.call("POST", "/workspace/\(workspace)/member?mid=\(will)&mid=\(anna)", token: token)
        XCTAssertEqual(cse118ErrorCodes(repeated), ["/query/mid type.openapi.validation"])
        // The query comes before the body, and validation before the lookup.
        let unknown = "0e4a6f2c-1d3b-4c5e-8f70-9a1b2c3d4e5f"
        XCTAssertEqual(cse118ErrorCodes(try client.call("POST", "/workspace/\(unknown)/channel?x", token: token, body: "{}")),
                       ["/query/x additionalProperties.openapi.validation"])
        XCTAssertEqual(cse118ErrorCodes(try client.call("POST", "/workspace/\(unknown)/channel", token: token, body: "{}")),
                       ["/body/name required.openapi.validation"])
        assertCSE118(try client.call("POST", "/workspace/\(unknown)/channel", token: token, body: #"{"name":"x"}"#), 404,
                     #"{"message":"Workspace not found","status":404}"#)
    }

    func testBodyValidation() throws {
        let token = try client.login(CSE118Account.sammy)
        let channel = seed.channel("Extra Channel", in: "Student Workspace", of: CSE118Account.sammy.0)
        assertCSE118(try client.call("POST", "/workspace", token: token, body: #"{"name":""}"#), 400,
                     cse118Validation("/body/name", "must NOT have fewer than 1 characters", "minLength"))
        // Lengths count code points: 32 emoji fit, 33 do not.
        XCTAssertEqual(try client.call("POST", "/workspace", token: token,
                                       body: #"{"name":"\#(String(repeating: "🐌", count: 32))"}"#).status, 201)
        assertCSE118(try client.call("POST", "/workspace", token: token, body: #"{"name":"\#(String(repeating: "🐌", count: 33))"}"#),
                     400, cse118Validation("/body/name", "must NOT have more than 32 characters", "maxLength"))
        XCTAssertEqual(try client.call("POST", "/channel/\(channel)/message", token: token,
                                       body: #"{"content":"\#(String(repeating: "a", count: 1000))"}"#).status, 201)
        assertCSE118(try client.call("POST", "/channel/\(channel)/message", token: token,
                                     body: #"{"content":"\#(String(repeating: "a", count: 1001))"}"#),
                     400, cse118Validation("/body/content", "must NOT have more than 1000 characters", "maxLength"))
        for value in ["null", "5", "true", #"["x"]"#, #"{"a":1}"#] {
            assertCSE118(try client.call("POST", "/workspace", token: token, body: #"{"name":\#(value)}"#), 400,
                         cse118Validation("/body/name", "must be string", "type"))
        }
        for body in ["\"name\"", "42", "null", #"[{"name":"x"}]"#] {
            assertCSE118(try client.call("POST", "/workspace", token: token, body: body), 400,
                         cse118Validation("/body", "must be object", "type"))
        }
        let mixed = try client.call("POST", "/channel/\(channel)/message", token: token, body: #"{"text":"hi","content":""}"#)
        XCTAssertEqual(cse118ErrorCodes(mixed), ["/body/content minLength.openapi.validation",
                                                 "/body/text additionalProperties.openapi.validation"])
        let notJSON = #"{"message":"Request body is not valid JSON","status":400}"#
        assertCSE118(try client.call("POST", "/workspace", token: token, body: "name=x",
                                     headers: [("Content-Type", "application/x-www-form-urlencoded")]), 400, notJSON)
        assertCSE118(try server.request("POST", "/api/v2/workspace", headers: [("Authorization", "Bearer \(token)")],
                                        body: [0x7B, 0x22, 0x6E, 0x61, 0x6D, 0x65, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D]),
                     400, notJSON)
        assertCSE118(try client.call("POST", "/workspace", token: token,
                                     body: String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)), 400, notJSON)
        // JSON is read whatever the Content-Type says.
        XCTAssertEqual(try client.call("POST", "/workspace", token: token, body: #"{"name":"Plain"}"#,
                                       headers: [("Content-Type", "text/plain")]).status, 201)
        // Bodies of GET, DELETE, PUT /reset and POST …/member are ignored.
        XCTAssertEqual(try client.call("GET", "/workspace", token: token, body: "not json").status, 200)
        XCTAssertEqual(try client.call("PUT", "/reset", token: token, body: "{{{").status, 200)
    }

    func testStringsAreWrittenAsExpressWritesThem() throws {
        let token = try client.login(CSE118Account.sammy)
        let channel = seed.channel("Extra Channel", in: "Student Workspace", of: CSE118Account.sammy.0)
        let response = try client.call("POST", "/channel/\(channel)/message", token: token,
                                       body: #"{"content":"a/b \"q\" \\ é\n\t\u0001 </script>"}"#)
        XCTAssertEqual(response.status, 201)
        let id = try XCTUnwrap(client.json(response)["id"] as? String)
        XCTAssertEqual(response.text, #"{"id":"\#(id)","member":"\#(sammy)","posted":"2024-02-03T18:04:05.125Z","content":"a/b \"q\" \\ é\n\t\u0001 </script>"}"#)
        XCTAssertEqual(id, id.lowercased())
        XCTAssertEqual(id.count, 36)
        XCTAssertEqual(Array(id)[14], "4", "a version 4 UUID")
    }

    // MARK: Paths, methods, HEAD and CORS

    func testUppercaseIDsAndTrailingSlashes() throws {
        let token = try client.login(CSE118Account.sammy)
        let workspace = seed.workspace("Student Workspace", of: CSE118Account.sammy.0).uppercased()
        let channel = seed.channel("Molly Channel", in: "Molly Workspace", of: CSE118Account.sammy.0).uppercased()
        assertCSE118(try client.call("GET", "/workspace/", token: token), 200, fixtureList(of: CSE118Account.sammy.0))
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace/\(workspace)/channel/", token: token)).count, 3)
        assertCSE118(try client.call("GET", "/channel/\(channel)/message/", token: token), 200, mollyChannelMessages(of: CSE118Account.sammy.0))
        assertCSE118(try client.call("POST", "/workspace/\(workspace)/member/?mid=\(will.uppercased())", token: token), 201,
                     #"{"id":"\#(will)","name":"William Shakespeare"}"#)
        assertCSE118(try client.call("GET", "/workspace/\(workspace)/member", token: token), 200,
                     #"[{"id":"\#(will)","name":"William Shakespeare"}]"#)
        let message = seed.messages("Student Channel", in: "Student Workspace", of: CSE118Account.sammy.0)[0]
        XCTAssertEqual(try client.call("DELETE", "/message/\(message.uppercased())/", token: token).status, 200)
        XCTAssertEqual(try client.call("POST", "/login/", body: #"{"email":"will@cse118.com","password":"will"}"#).status, 200)
        XCTAssertEqual(try client.call("PUT", "/reset/", token: token).text, "{}")
    }

    func testMethodNotAllowedUnknownPathsHeadAndPreflight() throws {
        let token = try client.login(CSE118Account.sammy)
        let workspace = seed.workspace("Student Workspace", of: CSE118Account.sammy.0)
        let notAllowed = #"{"message":"Method not allowed","status":405}"#
        for (method, path, allow) in [("GET", "/workspace/\(workspace)", "DELETE, OPTIONS"),
                                      ("PUT", "/workspace", "GET, HEAD, POST, OPTIONS"),
                                      ("GET", "/login", "POST, OPTIONS"),
                                      ("POST", "/reset", "PUT, OPTIONS"),
                                      ("PATCH", "/workspace/\(workspace)/member", "GET, HEAD, POST, DELETE, OPTIONS"),
                                      ("DELETE", "/member", "GET, HEAD, OPTIONS")] {
            let response = try client.call(method, path, token: token)
            assertCSE118(response, 405, notAllowed)
            XCTAssertEqual(response.headers["Allow"], allow, "\(method) \(path)")
        }
        let unknown = try client.call("GET", "/workspaces", token: token)
        assertCSE118(unknown, 404, #"{"error":"not_found","path":"/api/v2/workspaces","hint":"GET /api/v2/workspace"}"#)
        assertCSE118(try server.request("GET", "/api/v3/workspace?x=1"), 404, #"{"error":"not_found","path":"/api/v3/workspace","hint":"GET /api/v2/workspace"}"#)

        let get = try client.call("GET", "/workspace", token: token)
        let head = try client.call("HEAD", "/workspace", token: token)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["Content-Length"], String(get.body.count))

        let preflight = try client.call("OPTIONS", "/channel/\(workspace)/message")
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.headers["Access-Control-Allow-Methods"], "GET, HEAD, POST, OPTIONS")
        XCTAssertEqual(preflight.headers["Access-Control-Allow-Origin"], "*")
    }

    func testAPIDocsPages() throws {
        for target in ["/api/v2/api-docs", "/api/v2/api-docs/", "/api/v1/api-docs", "/api/v1/api-docs/"] {
            let response = try server.request("GET", target)
            XCTAssertEqual(response.status, 200, target)
            XCTAssertEqual(response.headers["Content-Type"], "text/html; charset=utf-8")
            let base = String(target.prefix(7))
            XCTAssertTrue(response.text.contains(#"<a href="/_mock/openapi/cse118.json">"#))
            XCTAssertTrue(response.text.contains("<code>DELETE</code></td><td><code>\(base)/workspace/{id}/member</code>"), target)
            XCTAssertTrue(response.text.contains("<code>PUT</code></td><td><code>\(base)/reset</code>"), target)
        }
    }

    // MARK: Advanced flows

    func testCreateShareAndTearDownAWorkspace() throws {
        let sammy = try client.login(CSE118Account.sammy)
        let created = try client.call("POST", "/workspace", token: sammy, body: #"{"name":"Advanced Workspace"}"#)
        let workspace = try XCTUnwrap(client.json(created)["id"] as? String)
        assertCSE118(created, 201, #"{"id":"\#(workspace)","name":"Advanced Workspace","owner":"\#(self.sammy)","channels":0}"#)
        let channelAnswer = try client.call("POST", "/workspace/\(workspace)/channel", token: sammy, body: #"{"name":"Advanced Channel"}"#)
        let channel = try XCTUnwrap(client.json(channelAnswer)["id"] as? String)
        assertCSE118(channelAnswer, 201, #"{"id":"\#(channel)","name":"Advanced Channel","messages":0}"#)
        let list = try client.jsonArray(client.call("GET", "/workspace", token: sammy))
        XCTAssertEqual(list.map { "\($0["name"]!) \($0["channels"]!)" },
                       ["Student Workspace 3", "Molly Workspace 1", "Anna Workspace 2", "Advanced Workspace 1"])

        // Add Will: he sees it and posts.
        let will = try client.login(CSE118Account.will)
        assertCSE118(try client.call("GET", "/channel/\(channel)/message", token: will), 404, #"{"message":"Channel not found","status":404}"#)
        assertCSE118(try client.call("POST", "/workspace/\(workspace)/member?mid=\(self.will)", token: sammy), 201,
                     #"{"id":"\#(self.will)","name":"William Shakespeare"}"#)
        assertCSE118(try client.call("POST", "/workspace/\(workspace)/member?mid=\(self.will)", token: sammy), 409,
                     #"{"message":"Member already in workspace","status":409}"#)
        assertCSE118(try client.call("POST", "/workspace/\(workspace)/member?mid=\(self.sammy)", token: sammy), 409,
                     #"{"message":"Member owns this workspace","status":409}"#)
        assertCSE118(try client.call("POST", "/workspace/\(workspace)/member?mid=0e4a6f2c-1d3b-4c5e-8f70-9a1b2c3d4e5f", token: sammy),
                     404, #"{"message":"Member not found","status":404}"#)
        let willsList = try client.jsonArray(client.call("GET", "/workspace", token: will))
        XCTAssertEqual(willsList.last?["id"] as? String, workspace)
        let post = try client.call("POST", "/channel/\(channel)/message", token: will, body: #"{"content":"To be, or not to be"}"#)
        let message = try XCTUnwrap(client.json(post)["id"] as? String)
        let willsMessage = #"{"id":"\#(message)","member":"\#(self.will)","posted":"2024-02-03T18:04:05.125Z","content":"To be, or not to be"}"#
        assertCSE118(post, 201, willsMessage)
        assertCSE118(try client.call("GET", "/channel/\(channel)/message", token: sammy), 200, "[\(willsMessage)]")
        // Will is a member, not the owner.
        assertCSE118(try client.call("DELETE", "/channel/\(channel)", token: will), 403,
                     #"{"message":"Only the workspace owner may do that","status":403}"#)

        // Remove Will: his message stays, the workspace vanishes for him.
        assertCSE118(try client.call("DELETE", "/workspace/\(workspace)/member?mid=\(self.will)", token: sammy), 200,
                     #"{"id":"\#(self.will)","name":"William Shakespeare"}"#)
        assertCSE118(try client.call("DELETE", "/workspace/\(workspace)/member?mid=\(self.will)", token: sammy), 404,
                     #"{"message":"Member not in workspace","status":404}"#)
        assertCSE118(try client.call("DELETE", "/workspace/\(workspace)/member?mid=\(self.sammy)", token: sammy), 404,
                     #"{"message":"Member not in workspace","status":404}"#)
        XCTAssertFalse(try client.jsonArray(client.call("GET", "/workspace", token: will)).contains { $0["id"] as? String == workspace })
        assertCSE118(try client.call("GET", "/channel/\(channel)/message", token: will), 404, #"{"message":"Channel not found","status":404}"#)
        assertCSE118(try client.call("DELETE", "/message/\(message)", token: will), 404, #"{"message":"Message not found","status":404}"#)
        assertCSE118(try client.call("GET", "/channel/\(channel)/message", token: sammy), 200, "[\(willsMessage)]")

        // Delete the channel (with its message count), then the workspace.
        assertCSE118(try client.call("DELETE", "/channel/\(channel)", token: sammy), 200,
                     #"{"id":"\#(channel)","name":"Advanced Channel","messages":1}"#)
        assertCSE118(try client.call("DELETE", "/message/\(message)", token: sammy), 404, #"{"message":"Message not found","status":404}"#)
        assertCSE118(try client.call("DELETE", "/workspace/\(workspace)", token: sammy), 200,
                     #"{"id":"\#(workspace)","name":"Advanced Workspace","owner":"\#(self.sammy)","channels":0}"#)
        assertCSE118(try client.call("DELETE", "/workspace/\(workspace)", token: sammy), 404, #"{"message":"Workspace not found","status":404}"#)
        assertCSE118(try client.call("GET", "/workspace", token: sammy), 200, fixtureList(of: CSE118Account.sammy.0))
    }

    func testDeletingAWorkspaceTakesItsChannelsMessagesAndMemberships() throws {
        let molly = try client.login(CSE118Account.molly)
        let will = try client.login(CSE118Account.will)
        let workspace = seed.workspace("Molly Workspace", of: CSE118Account.riley.0)
        let channel = seed.channel("Molly Channel", in: "Molly Workspace", of: CSE118Account.riley.0)
        let message = seed.messages("Molly Channel", in: "Molly Workspace", of: CSE118Account.riley.0)[2]
        assertCSE118(try client.call("DELETE", "/workspace/\(workspace)", token: molly), 200,
                     #"{"id":"\#(workspace)","name":"Molly Workspace","owner":"\#(self.molly)","channels":1}"#)
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace", token: will)).count, 2)
        assertCSE118(try client.call("GET", "/channel/\(channel)/message", token: molly), 404, #"{"message":"Channel not found","status":404}"#)
        assertCSE118(try client.call("DELETE", "/message/\(message)", token: will), 404, #"{"message":"Message not found","status":404}"#)
        // Sammy's and Casey's copies are untouched.
        assertCSE118(try client.call("GET", "/workspace", token: client.login(CSE118Account.casey)), 200, fixtureList(of: CSE118Account.casey.0))
    }

    // MARK: Per-student reset

    func testResetRestoresOnlyTheCallersFixtures() throws {
        let sammy = try client.login(CSE118Account.sammy)
        let riley = try client.login(CSE118Account.riley)
        let will = try client.login(CSE118Account.will)
        let anna = try client.login(CSE118Account.anna)
        let molly = try client.login(CSE118Account.molly)
        let sammyStudent = seed.workspace("Student Workspace", of: CSE118Account.sammy.0)
        let sammyAnna = seed.workspace("Anna Workspace", of: CSE118Account.sammy.0)
        let sammyMolly = seed.workspace("Molly Workspace", of: CSE118Account.sammy.0)
        let sammyMollyChannel = seed.channel("Molly Channel", in: "Molly Workspace", of: CSE118Account.sammy.0)
        let sammyAnnaChannel = seed.channel("Anna Channel", in: "Anna Workspace", of: CSE118Account.sammy.0)

        // Sammy's copies change in every way, by Sammy and by others.
        XCTAssertEqual(try client.call("DELETE", "/workspace/\(sammyStudent)", token: sammy).status, 200)
        XCTAssertEqual(try client.call("POST", "/workspace", token: sammy, body: #"{"name":"Sammy's own"}"#).status, 201)
        XCTAssertEqual(try client.call("POST", "/channel/\(sammyMollyChannel)/message", token: sammy, body: #"{"content":"extra"}"#).status, 201)
        let ownAnnaMessage = seed.messages("Anna Channel", in: "Anna Workspace", of: CSE118Account.sammy.0)[1]
        XCTAssertEqual(try client.call("DELETE", "/message/\(ownAnnaMessage)", token: sammy).status, 200)
        XCTAssertEqual(try client.call("POST", "/workspace/\(sammyMolly)/channel", token: molly, body: #"{"name":"Molly's second"}"#).status, 201)
        XCTAssertEqual(try client.call("POST", "/workspace/\(sammyMolly)/member?mid=\(seed.id(CSE118Account.harrison.0))", token: molly).status, 201)
        XCTAssertEqual(try client.call("DELETE", "/workspace/\(sammyAnna)/member?mid=\(self.sammy)", token: anna).status, 200)
        // Will's own workspace, shared with Sammy, where Sammy posts.
        let willsWorkspace = try XCTUnwrap(client.json(client.call("POST", "/workspace", token: will, body: #"{"name":"Globe"}"#))["id"] as? String)
        XCTAssertEqual(try client.call("POST", "/workspace/\(willsWorkspace)/member?mid=\(self.sammy)", token: will).status, 201)
        let globe = try XCTUnwrap(client.json(client.call("POST", "/workspace/\(willsWorkspace)/channel", token: will, body: #"{"name":"Stage"}"#))["id"] as? String)
        XCTAssertEqual(try client.call("POST", "/channel/\(globe)/message", token: sammy, body: #"{"content":"Sammy at the Globe"}"#).status, 201)

        // Riley changes her own copies too.
        let rileyStudent = seed.workspace("Student Workspace", of: CSE118Account.riley.0)
        let rileyExtra = seed.channel("Extra Channel", in: "Student Workspace", of: CSE118Account.riley.0)
        XCTAssertEqual(try client.call("DELETE", "/channel/\(rileyExtra)", token: riley).status, 200)
        XCTAssertEqual(try client.call("POST", "/workspace", token: riley, body: #"{"name":"Riley's own"}"#).status, 201)
        let rileyBefore = try client.call("GET", "/workspace", token: riley).text
        let rileyChannelsBefore = try client.call("GET", "/workspace/\(rileyStudent)/channel", token: riley).text
        let caseyBefore = try client.call("GET", "/workspace", token: client.login(CSE118Account.casey)).text

        assertCSE118(try client.call("PUT", "/reset", token: sammy), 200, "{}")

        // Sammy: the fixtures exactly as seeded, at their seed positions; Will's workspace stays.
        let globeShape = #"{"id":"\#(willsWorkspace)","name":"Globe","owner":"\#(self.will)","channels":1}"#
        assertCSE118(try client.call("GET", "/workspace", token: sammy), 200,
                     String(fixtureList(of: CSE118Account.sammy.0).dropLast()) + "," + globeShape + "]")
        assertCSE118(try client.call("GET", "/channel/\(sammyMollyChannel)/message", token: sammy), 200,
                     mollyChannelMessages(of: CSE118Account.sammy.0))
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/channel/\(sammyAnnaChannel)/message", token: sammy)).count, 2)
        assertCSE118(try client.call("GET", "/workspace/\(sammyMolly)/member", token: sammy), 200,
                     #"[{"id":"\#(self.anna)","name":"Anna Admin"},{"id":"\#(self.sammy)","name":"Sammy Slug"},{"id":"\#(self.will)","name":"William Shakespeare"}]"#)
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace/\(sammyStudent)/channel", token: sammy)).map { $0["name"] as? String },
                       ["Student Channel", "Extra Channel", "Another Channel"])
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/channel/\(globe)/message", token: will)).map { $0["content"] as? String },
                       ["Sammy at the Globe"])
        // Everyone else's data is exactly as it was; every token still works.
        XCTAssertEqual(try client.call("GET", "/workspace", token: riley).text, rileyBefore)
        XCTAssertEqual(try client.call("GET", "/workspace/\(rileyStudent)/channel", token: riley).text, rileyChannelsBefore)
        XCTAssertEqual(try client.call("GET", "/workspace", token: client.login(CSE118Account.casey)).text, caseyBefore)
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace", token: will)).count, 4)

        // Will has no fixtures: his reset only deletes what he created.
        assertCSE118(try client.call("PUT", "/reset", token: will), 200, "{}")
        assertCSE118(try client.call("GET", "/workspace", token: sammy), 200, fixtureList(of: CSE118Account.sammy.0))
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace", token: will)).map { $0["name"] as? String },
                       Array(repeating: "Molly Workspace", count: 3))

        // Riley's reset brings her copies back too.
        assertCSE118(try client.call("PUT", "/reset", token: riley), 200, "{}")
        assertCSE118(try client.call("GET", "/workspace", token: riley), 200, fixtureList(of: CSE118Account.riley.0))
    }

    // MARK: v1 = v2, concurrency

    func testV1AndV2AreOneAPI() throws {
        let v1 = CSE118Client(server: server, base: "/api/v1")
        let token = try v1.login(CSE118Account.casey)
        let channel = seed.channel("Molly Channel", in: "Molly Workspace", of: CSE118Account.casey.0)
        for path in ["/workspace", "/member", "/channel/\(channel)/message",
                     "/workspace/\(seed.workspace("Anna Workspace", of: CSE118Account.casey.0))/member"] {
            let one = try v1.call("GET", path, token: token), two = try client.call("GET", path, token: token)
            XCTAssertEqual(one.status, 200, path)
            XCTAssertEqual(one.text, two.text, path)
        }
        // A change through v1 is seen through v2.
        let created = try v1.call("POST", "/workspace", token: token, body: #"{"name":"Through v1"}"#)
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace", token: token)).last?["name"] as? String, "Through v1")
        assertCSE118(try v1.call("GET", "/workspace/abc"), 405, #"{"message":"Method not allowed","status":405}"#)
        assertCSE118(try v1.call("DELETE", "/workspace/abc"), 401, #"{"message":"Authorization header required","status":401}"#)
    }

    func testConcurrentPostsAllLand() throws {
        let token = try client.login(CSE118Account.sammy)
        let channel = seed.channel("Another Channel", in: "Student Workspace", of: CSE118Account.sammy.0)
        let ids = Locked<[String]>([])
        let port = server.port
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let body = #"{"content":"n\#(index)"}"#
            let request = "POST /api/v2/channel/\(channel)/message HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
            guard let connection = try? BlockingClient(port: port) else { return }
            connection.send(request)
            guard let response = try? connection.readResponse(), response.status == 201,
                  let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
                  let id = object["id"] as? String else { return }
            ids.withLock { $0.append(id) }
        }
        let posted = ids.withLock { $0 }
        XCTAssertEqual(Set(posted).count, 16)
        let listed = try client.jsonArray(client.call("GET", "/channel/\(channel)/message", token: token))
        XCTAssertEqual(Set(listed.compactMap { $0["id"] as? String }), Set(posted))
    }

    // MARK: Size limits

    /// A server whose cse118 options `configure` changed, sammy's token, and a new channel of his.
    private func restartWithNewChannel(_ configure: (inout APIOptions) -> Void) throws -> (token: String, channel: String) {
        var options = cse118Options()
        configure(&options)
        server = try TestServer(apis: ["cse118"], options: options)
        client = CSE118Client(server: server)
        let token = try client.login(CSE118Account.sammy)
        let workspace = try XCTUnwrap(client.json(client.call("POST", "/workspace", token: token, body: #"{"name":"Full"}"#))["id"] as? String)
        let channel = try XCTUnwrap(client.json(client.call("POST", "/workspace/\(workspace)/channel", token: token,
                                                            body: #"{"name":"Full"}"#))["id"] as? String)
        return (token, channel)
    }

    private static let unavailable = #"{"message":"Service Unavailable","status":503}"#

    /// A channel at its cap (lowered from 100,000 messages to 3): a post past it is the API's 503,
    /// and the message is not stored (docs/apis/cse118.md#size-limits).
    func testPostsPastTheChannelsCapAreRefusedAndNotStored() throws {
        let (token, channel) = try restartWithNewChannel { $0.rowLimit = 3 }
        for index in 0..<3 {
            XCTAssertEqual(try client.call("POST", "/channel/\(channel)/message", token: token,
                                           body: #"{"content":"m\#(index)"}"#).status, 201)
        }
        assertCSE118(try client.call("POST", "/channel/\(channel)/message", token: token, body: #"{"content":"one more"}"#),
                     503, Self.unavailable)
        let listed = try client.jsonArray(client.call("GET", "/channel/\(channel)/message", token: token))
        XCTAssertEqual(listed.compactMap { $0["content"] as? String }, ["m0", "m1", "m2"])
    }

    /// Stored text may take half of the memory budget (here 8 KiB of 16 KiB): messages of 1,000
    /// characters are stored while they fit, then refused with the API's 503 and not stored; a
    /// reset gives the share back.
    func testPostsPastTheStoredShareAreRefusedAndNotStored() throws {
        let (token, channel) = try restartWithNewChannel {
            $0.storedText = StoredText(budget: MemoryBudget(limit: 16 << 10, limitPerAddress: 8 << 10))
        }
        let content = String(repeating: "c", count: 1000)
        let answers = try (0..<8).map { _ in
            try client.call("POST", "/channel/\(channel)/message", token: token, body: #"{"content":"\#(content)"}"#)
        }
        // 6 × (1,000 + 256) bytes fit in 8 KiB, a seventh does not.
        XCTAssertEqual(answers.map(\.status), [201, 201, 201, 201, 201, 201, 503, 503])
        for refused in answers.dropFirst(6) { assertCSE118(refused, 503, Self.unavailable) }
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/channel/\(channel)/message", token: token)).count, 6)
        XCTAssertEqual(try server.request("POST", "/_mock/reset/cse118").status, 200)
        let again = try client.login(CSE118Account.sammy)
        let student = seed.channel("Student Channel", in: "Student Workspace", of: CSE118Account.sammy.0)
        XCTAssertEqual(try client.call("POST", "/channel/\(student)/message", token: again, body: #"{"content":"\#(content)"}"#).status, 201)
    }
}
