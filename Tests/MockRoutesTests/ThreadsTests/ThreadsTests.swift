import Foundation
import MockHTTP
import MockApp
import MockKit
import TestSupport
import XCTest

/// The threads API over real sockets, sent the way Alamofire, OkHttp and Postman send it.
final class ThreadsTests: XCTestCase, @unchecked Sendable {
    private var server: TestServer!
    private let now = Locked(Date(timeIntervalSince1970: 1_700_000_000))  // 2023-11-14 22:13:20 UTC

    override func setUpWithError() throws {
        var options = APIOptions()
        options.clock = { [now] in now.withLock { $0 } }
        server = try TestServer(apis: ["threads"], options: options)
    }

    override func tearDown() {
        server = nil
    }

    // MARK: Helpers

    private let form = ("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")

    private func post(_ path: String, form body: String, token: String? = nil) throws -> ClientResponse {
        var headers = [form]
        if let token { headers.append(("Authorization", "BEARER \(token)")) }
        return try server.request("POST", path, headers: headers, body: body)
    }

    private func get(_ path: String, token: String, method: String = "GET") throws -> ClientResponse {
        try server.request(method, path, headers: [("Authorization", "BEARER \(token)")])
    }

    private func login(_ email: String = "a@a.com", _ password: String = "test123") throws -> String {
        let response = try post("/api/login", form: "email=\(email)&password=\(password)")
        XCTAssertEqual(response.status, 200, response.text)
        return try XCTUnwrap(json(response)["token"] as? String)
    }

    private func json(_ response: ClientResponse) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    private func assertError(_ response: ClientResponse, _ status: Int, _ message: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, status, file: file, line: line)
        XCTAssertEqual(response.text, "{\"status\":\"error\",\"message\":\"\(message)\"}", file: file, line: line)
        XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8", file: file, line: line)
        XCTAssertEqual(response.headers["Access-Control-Allow-Origin"], "*", file: file, line: line)
    }

    private func messageIDs(thread: Int, token: String) throws -> [Int] {
        let response = try get("/api/messages/\(thread)", token: token)
        return try XCTUnwrap(json(response)["messages"] as? [[String: Any]]).map { $0["message_id"] as! Int }
    }

    private func seededThreadsBody() -> String {
        #"{"status":"ok","threads":[{"created_by":{"fname":"Ervin","lname":"Sondag","user_id":2},"thread_id":1,"title":"Welcome to the message board","created_at":"2019-11-20 14:05:12"},"#
            + #"{"created_by":{"fname":"Bob","lname":"Smith","user_id":1},"thread_id":2,"title":"Midterm makeup study group","created_at":"2019-11-20 15:30:00"},"#
            + #"{"created_by":{"fname":"Dana","lname":"Whitfield","user_id":3},"thread_id":3,"title":"Alamofire or URLSession?","created_at":"2019-11-21 09:12:45"},"#
            + #"{"created_by":{"fname":"Test","lname":"User","user_id":4},"thread_id":4,"title":"Lost and found: blue umbrella","created_at":"2019-11-21 17:48:03"}]}"#
    }

    // MARK: Login and signup

    func testLoginAnswersTheAuthObjectWithAJWTShapedToken() throws {
        let response = try post("/api/login", form: "email=a%40a.com&password=test123")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8")
        let token = try XCTUnwrap(json(response)["token"] as? String)
        XCTAssertEqual(response.text, #"{"status":"ok","token":"\#(token)","user_id":2,"user_email":"a@a.com","user_fname":"Ervin","user_lname":"Sondag","user_role":"USER"}"#)

        let parts = token.split(separator: ".").map(String.init)
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(parts[0], "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9")
        XCTAssertEqual(parts[2].count, 43)
        XCTAssertTrue(parts[1].allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let claims = String(decoding: try XCTUnwrap(Data(base64Encoded: payload)), as: UTF8.self)
        let jti = try XCTUnwrap(claims.split(separator: "\"").dropFirst(7).first.map(String.init))
        XCTAssertEqual(claims, #"{"iat":1700000000,"exp":1731536000,"jti":"\#(jti)","user":2}"#)
        XCTAssertEqual(jti.count, 22)
        XCTAssertTrue(jti.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
    }

    func testLoginReadsFormJSONAndMultipartAlike() throws {
        let viaJSON = try server.request("POST", "/api/login", headers: [("Content-Type", "application/json")],
                                         body: #"{"email":"b@b.com","password":"test123"}"#)
        XCTAssertEqual(try json(viaJSON)["user_id"] as? Int, 1)
        let sniffed = try server.request("POST", "/api/login", body: #" {"email":"b@b.com","password":"test123"}"#)
        XCTAssertEqual(try json(sniffed)["user_id"] as? Int, 1)
        let boundary = "--------------------------412359884737406154813207"
        let multipart = "--\(boundary)\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\nd@d.com\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\ntest123\r\n--\(boundary)--\r\n"
        let viaMultipart = try server.request("POST", "/api/login",
                                              headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")],
                                              body: multipart)
        XCTAssertEqual(try json(viaMultipart)["user_id"] as? Int, 3)
    }

    func testLoginMatchesEmailIgnoringCaseAndSpacesButAnswersTheStoredEmail() throws {
        let response = try post("/api/login", form: "email=+TEST%40Test.com+&password=test12345")
        XCTAssertEqual(try json(response)["user_email"] as? String, "test@test.com")
    }

    func testLoginErrors() throws {
        assertError(try post("/api/login", form: ""), 400, "Email is required.")
        assertError(try post("/api/login", form: "email=++&password=x"), 400, "Email is required.")
        assertError(try post("/api/login", form: "email=a@a.com"), 400, "Password is required.")
        assertError(try post("/api/login", form: "email=a@a.com&password=TEST123"), 401, "Invalid email or password.")
        assertError(try post("/api/login", form: "email=nobody@a.com&password=test123"), 401, "Invalid email or password.")
        assertError(try server.request("POST", "/api/login", headers: [("Content-Type", "application/json")], body: "{\"email\":"),
                    400, "Invalid JSON body.")
        assertError(try server.request("POST", "/api/login", headers: [("Content-Type", "application/json")], body: "[1]"),
                    400, "Invalid JSON body.")
        assertError(try server.request("POST", "/api/login", headers: [("Content-Type", "application/json")],
                                       body: #"{"email":null,"password":true}"#), 400, "Email is required.")
    }

    func testEmailsPasswordsAndTokensCompareByteForByte() throws {
        // é composed (C3 A9) and decomposed (65 CC 81): canonically equivalent, other bytes.
        XCTAssertEqual(try post("/api/signup", form: "email=jos%C3%A9@x.com&password=caf%C3%A9&fname=J&lname=C").status, 200)
        XCTAssertEqual(try post("/api/signup", form: "email=jose%CC%81@x.com&password=cafe%CC%81&fname=J&lname=D").status, 200)
        assertError(try post("/api/signup", form: "email=JOS%C3%89@X.COM&password=p&fname=J&lname=E"), 409, "Email already exists.")
        assertError(try post("/api/login", form: "email=jos%C3%A9@x.com&password=cafe%CC%81"), 401, "Invalid email or password.")
        XCTAssertEqual(try json(post("/api/login", form: "email=jose%CC%81@x.com&password=cafe%CC%81"))["user_lname"] as? String, "D")
        // Every token's header part holds a K; the Kelvin sign (E2 84 AA) in its place is another token.
        let token = try login()
        let kelvin = token.replacingOccurrences(of: "K", with: "\u{212A}")
        XCTAssertNotEqual(Array(kelvin.utf8), Array(token.utf8))
        assertError(try get("/api/threads", token: kelvin), 401, "Invalid token.")
        XCTAssertEqual(try get("/api/threads", token: token).status, 200)
    }

    func testQueryIsNeverReadForFields() throws {
        assertError(try post("/api/login?email=a@a.com&password=test123", form: ""), 400, "Email is required.")
    }

    func testSignupCreatesTheNextUserAndLogsIn() throws {
        assertError(try post("/api/signup", form: "email=c@c.com&password=p&fname=Carla"), 400, "Last name is required.")
        assertError(try post("/api/signup", form: "password=p&fname=C&lname=D"), 400, "Email is required.")
        assertError(try post("/api/signup", form: "email=c@c.com&fname=C&lname=D"), 400, "Password is required.")
        assertError(try post("/api/signup", form: "email=c@c.com&password=p&lname=D"), 400, "First name is required.")
        let response = try post("/api/signup", form: "email=c@c.com&password=secret&fname=Carla&lname=Diaz")
        let token = try XCTUnwrap(json(response)["token"] as? String)
        XCTAssertEqual(response.text, #"{"status":"ok","token":"\#(token)","user_id":5,"user_email":"c@c.com","user_fname":"Carla","user_lname":"Diaz","user_role":"USER"}"#)
        XCTAssertEqual(try get("/api/threads", token: token).status, 200)
        XCTAssertEqual(try login("c@c.com", "secret").isEmpty, false)
        assertError(try post("/api/signup", form: "email=C%40C.COM&password=x&fname=X&lname=Y"), 409, "Email already exists.")
    }

    func testConcurrentSignupsWithOneEmailLetExactlyOneThrough() throws {
        let statuses = Locked([Int]())
        DispatchQueue.concurrentPerform(iterations: 12) { _ in
            let status = (try? post("/api/signup", form: "email=z@z.com&password=p&fname=Z&lname=Z").status) ?? 0
            statuses.withLock { $0.append(status) }
        }
        XCTAssertEqual(statuses.withLock { $0.sorted() }, [200] + Array(repeating: 409, count: 11))
    }

    // MARK: Authorization

    func testEveryBearerSpellingWorks() throws {
        let token = try login()
        for value in ["BEARER \(token)", "Bearer \(token)", "bearer \(token)", "BEARER  \(token)", "Bearer\t\(token)"] {
            XCTAssertEqual(try server.request("GET", "/api/threads", headers: [("Authorization", value)]).status, 200, value)
        }
        XCTAssertEqual(try server.request("GET", "/api/threads", headers: [("AUTHORIZATION", "BEARER \(token)")]).status, 200)
        XCTAssertEqual(try server.request("GET", "/api/threads", headers: [("authorization", "bearer \(token)")]).status, 200)
    }

    func testTokenErrors() throws {
        let token = try login()
        assertError(try server.request("GET", "/api/threads"), 401, "Token not found.")
        for value in ["Token \(token)", token, "BEARER\(token)", "BEARER ", "Basic YTpi"] {
            assertError(try server.request("GET", "/api/threads", headers: [("Authorization", value)]), 401, "Token not found.")
        }
        assertError(try get("/api/threads", token: token + "x"), 401, "Invalid token.")
        now.withLock { $0 += 31_536_000 }
        assertError(try get("/api/threads", token: token), 401, "Expired token.")
    }

    func testEveryLoginMintsANewTokenAndOldOnesStayValid() throws {
        let first = try login()
        now.withLock { $0 += 1 }
        let second = try login()
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(try get("/api/threads", token: first).status, 200)
        XCTAssertEqual(try get("/api/threads", token: second).status, 200)
    }

    func testAuthorizationIsCheckedBeforeTheBody() throws {
        assertError(try post("/api/thread/add", form: ""), 401, "Token not found.")
        assertError(try server.request("POST", "/api/message/add", headers: [("Authorization", "BEARER nope")], body: "{"),
                    401, "Invalid token.")
    }

    // MARK: Threads

    func testThreadListIsTheSeedInIdOrder() throws {
        let response = try get("/api/threads", token: try login())
        XCTAssertEqual(response.text, seededThreadsBody())
        XCTAssertEqual(response.headers["Access-Control-Allow-Origin"], "*")
    }

    func testLegacyThreadRouteUsesTheFlatShape() throws {
        let response = try get("/api/thread", token: try login())
        XCTAssertTrue(response.text.hasPrefix(#"{"status":"ok","threads":[{"id":1,"user_id":2,"user_fname":"Ervin","user_lname":"Sondag","title":"Welcome to the message board","created_at":"2019-11-20 14:05:12"},{"id":2,"#), response.text)
        XCTAssertEqual(try XCTUnwrap(json(response)["threads"] as? [Any]).count, 4)
    }

    func testHeadListsWithoutBody() throws {
        let client = try server.connect()
        client.send("HEAD /api/threads HTTP/1.1\r\nHost: test\r\nAuthorization: BEARER \(try login())\r\n\r\n")
        let response = try client.readResponse(head: true)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Length"], String(seededThreadsBody().utf8.count))
    }

    func testAddThreadAppearsLastExactlyAsReturned() throws {
        let token = try login()
        assertError(try post("/api/thread/add", form: "title=+%20", token: token), 400, "Title is required.")
        let added = try post("/api/thread/add", form: "title=Exam+%2F+review", token: token)
        let expected = #"{"created_by":{"fname":"Ervin","lname":"Sondag","user_id":2},"thread_id":5,"title":"Exam \/ review","created_at":"2023-11-14 22:13:20"}"#
        XCTAssertEqual(added.text, #"{"status":"ok","thread":\#(expected)}"#)
        let list = try get("/api/threads", token: token).text
        XCTAssertTrue(list.hasSuffix(",\(expected)]}"), list)
        XCTAssertTrue(try get("/api/thread", token: token).text.contains(#"{"id":5,"user_id":2,"#))
    }

    func testDeleteThreadRules() throws {
        let ervin = try login(), bob = try login("b@b.com")
        assertError(try get("/api/thread/delete/2", token: ervin), 403, "You can only delete your own threads.")
        assertError(try get("/api/thread/delete/abc", token: ervin), 404, "Thread not found.")
        assertError(try get("/api/thread/delete/99", token: ervin), 404, "Thread not found.")
        XCTAssertEqual(try get("/api/threads", token: ervin).text, seededThreadsBody(), "failed deletes change nothing")

        let deleted = try get("/api/thread/delete/2", token: bob, method: "DELETE")
        XCTAssertEqual(deleted.text, #"{"status":"ok","message":"Thread deleted"}"#)
        // The lists are cached between changes: a delete must show at once, in both shapes.
        XCTAssertFalse(try get("/api/threads", token: bob).text.contains(#""thread_id":2,"#))
        XCTAssertFalse(try get("/api/thread", token: bob).text.contains(#"{"id":2,"#))
        assertError(try get("/api/messages/2", token: bob), 404, "Thread not found.")
        assertError(try post("/api/message/add", form: "thread_id=2&message=hi", token: bob), 404, "Thread not found.")
        assertError(try get("/api/thread/delete/2", token: bob), 404, "Thread not found.")
        assertError(try get("/api/message/delete/4", token: bob), 404, "Message not found.")
    }

    func testHeadNeverDeletes() throws {
        let token = try login()
        let client = try server.connect()
        client.send("HEAD /api/thread/delete/1 HTTP/1.1\r\nHost: test\r\nAuthorization: BEARER \(token)\r\n\r\n")
        let response = try client.readResponse(head: true)
        XCTAssertEqual(response.status, 405)
        XCTAssertEqual(response.headers["Allow"], "GET, POST, DELETE, OPTIONS")
        XCTAssertEqual(try messageIDs(thread: 1, token: token), [3, 2, 1])
    }

    // MARK: Messages

    func testMessagesAreNewestFirstWithTiesByHigherID() throws {
        let token = try login()
        XCTAssertEqual(try messageIDs(thread: 1, token: token), [3, 2, 1])
        XCTAssertEqual(try messageIDs(thread: 2, token: token), [7, 6, 4, 5])
        XCTAssertEqual(try messageIDs(thread: 3, token: token), [10, 9, 8])
        XCTAssertEqual(try messageIDs(thread: 4, token: token), [12, 11])
        assertError(try get("/api/messages/x1", token: token), 404, "Thread not found.")
        let first = try get("/api/messages/4", token: token).text
        XCTAssertTrue(first.hasPrefix(#"{"status":"ok","messages":[{"created_by":{"fname":"Dana","lname":"Whitfield","user_id":3},"message_id":12,"message":"Check the front desk, they keep a box.","created_at":"2019-11-21 18:02:10"},"#), first)
    }

    func testAddMessageFromPostmanMultipart() throws {
        let token = try login()
        let boundary = "X-POSTMAN-BOUNDARY"
        let body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"message\"\r\n\r\ntesting message\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"thread_id\"\r\n\r\n1\r\n--\(boundary)--\r\n"
        let response = try server.request("POST", "/api/message/add?", headers: [
            ("Authorization", "BEARER \(token)"), ("Content-Type", "multipart/form-data; boundary=\(boundary)"),
        ], body: body)
        let expected = #"{"created_by":{"fname":"Ervin","lname":"Sondag","user_id":2},"message_id":13,"message":"testing message","created_at":"2023-11-14 22:13:20"}"#
        XCTAssertEqual(response.text, #"{"status":"ok","message":\#(expected)}"#)
        XCTAssertTrue(try get("/api/messages/1", token: token).text.hasPrefix(#"{"status":"ok","messages":[\#(expected),"#))
    }

    func testAddMessageFieldRules() throws {
        let token = try login("d@d.com")
        assertError(try post("/api/message/add", form: "message=hi", token: token), 400, "Thread id is required.")
        assertError(try post("/api/message/add", form: "thread_id=1&message=%20", token: token), 400, "Message is required.")
        assertError(try post("/api/message/add", form: "thread_id=one&message=hi", token: token), 404, "Thread not found.")
        let jsonHeaders = [("Authorization", "BEARER \(token)"), ("Content-Type", "application/json")]
        for threadID in ["2", "2.0", "\" 2 \""] {
            let response = try server.request("POST", "/api/message/add", headers: jsonHeaders,
                                              body: #"{"thread_id":\#(threadID),"message":"via JSON"}"#)
            XCTAssertEqual(response.status, 200, threadID)
        }
        assertError(try server.request("POST", "/api/message/add", headers: jsonHeaders, body: #"{"thread_id":2.5,"message":"x"}"#),
                    404, "Thread not found.")
        let long = String(repeating: "é", count: 40_000)
        let response = try post("/api/message/add", form: "thread_id=3&message=" + long, token: token)
        XCTAssertEqual(try XCTUnwrap(json(response)["message"] as? [String: Any])["message"] as? String, long)
    }

    func testOnlyTheAuthorDeletesAMessageAndIdsAreNeverReused() throws {
        let ervin = try login(), bob = try login("b@b.com")
        assertError(try get("/api/message/delete/1", token: ervin), 403, "You can only delete your own messages.")
        XCTAssertEqual(try get("/api/message/delete/1", token: bob, method: "POST").text,
                       #"{"status":"ok","message":"Message deleted"}"#)
        XCTAssertEqual(try messageIDs(thread: 1, token: ervin), [3, 2])
        let added = try post("/api/message/add", form: "thread_id=1&message=a", token: ervin)
        XCTAssertEqual(try XCTUnwrap(json(added)["message"] as? [String: Any])["message_id"] as? Int, 13)
        _ = try get("/api/message/delete/13", token: ervin)
        let again = try post("/api/message/add", form: "thread_id=1&message=b", token: ervin)
        XCTAssertEqual(try XCTUnwrap(json(again)["message"] as? [String: Any])["message_id"] as? Int, 14)
    }

    func testTwentyConcurrentAddsGetTwentyDistinctIDs() throws {
        let token = try login()
        let ids = Locked([Int]())
        DispatchQueue.concurrentPerform(iterations: 20) { index in
            guard let response = try? post("/api/thread/add", form: "title=t\(index)", token: token),
                  let object = try? json(response), let thread = object["thread"] as? [String: Any],
                  let id = thread["thread_id"] as? Int else { return }
            ids.withLock { $0.append(id) }
        }
        XCTAssertEqual(ids.withLock { $0.sorted() }, Array(5...24))
    }

    // MARK: Routing, methods and reset

    func testWrongMethodAndUnknownPaths() throws {
        let response = try server.request("PUT", "/api/threads")
        assertError(response, 405, "Method not allowed.")
        XCTAssertEqual(response.headers["Allow"], "GET, HEAD, OPTIONS")
        XCTAssertEqual(try server.request("GET", "/api/login").headers["Allow"], "POST, OPTIONS")
        let missing = try server.request("GET", "/api/threads/")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.text, #"{"error":"not_found","path":"/api/threads/","hint":"GET /api/threads"}"#)
        XCTAssertEqual(try server.request("GET", "/api/messages").status, 404)
    }

    func testPreflight() throws {
        let response = try server.request("OPTIONS", "/api/message/delete/3")
        XCTAssertEqual(response.status, 204)
        XCTAssertEqual(response.headers["Access-Control-Allow-Methods"], "GET, POST, DELETE, OPTIONS")
        XCTAssertEqual(response.headers["Access-Control-Allow-Headers"], "Authorization, Content-Type, x-authtoken")
        XCTAssertEqual(response.headers["Access-Control-Max-Age"], "600")
    }

    func testElevenLoginsAsOneUserLeaveEveryTokenWorking() throws {
        // A classroom logs in as the banner's account (docs/apis/threads.md#tokens).
        let tokens = try (0...10).map { _ in try login("b@b.com") }
        for token in tokens { XCTAssertEqual(try get("/api/threads", token: token).status, 200) }
    }

    func testPastTheLimitTheOldestIssuedTokenEndsButNoDocumentsToken() throws {
        var options = APIOptions()
        options.issuedTokenLimit = 2
        server = try TestServer(apis: ["threads"], options: options)
        let loaded = try login()
        // Loaded back from a state document, the token is the document's: the limit never ends it.
        let document = try server.request("GET", "/_mock/state/threads").text
        XCTAssertEqual(try server.request("PUT", "/_mock/state/threads", body: document).status, 200)
        let issued = try (0...2).map { _ in try login("b@b.com") }
        assertError(try get("/api/threads", token: issued[0]), 401, "Invalid token.")
        for token in [loaded, issued[1], issued[2]] { XCTAssertEqual(try get("/api/threads", token: token).status, 200) }
    }

    func testResetReturnsTheSeedAndForgetsTokens() throws {
        let token = try login()
        _ = try post("/api/thread/add", form: "title=temporary", token: token)
        _ = try post("/api/signup", form: "email=c@c.com&password=p&fname=C&lname=D")
        let reset = try server.request("POST", "/_mock/reset/threads")
        XCTAssertEqual(reset.text, #"{"reset":["threads"]}"#)
        assertError(try get("/api/threads", token: token), 401, "Invalid token.")
        XCTAssertEqual(try get("/api/threads", token: try login()).text, seededThreadsBody())
        XCTAssertEqual(try post("/api/signup", form: "email=c@c.com&password=p&fname=C&lname=D").status, 200)
        let added = try post("/api/message/add", form: "thread_id=1&message=a", token: try login())
        XCTAssertEqual(try XCTUnwrap(json(added)["message"] as? [String: Any])["message_id"] as? Int, 13)
    }

    // MARK: 2017–2018 sessions

    func testASessionThatListedThroughTheLegacyRouteGetsTheFlatShapeEverywhere() throws {
        let token = try login()
        XCTAssertEqual(try get("/api/thread", token: token).status, 200)

        XCTAssertEqual(try get("/api/messages/4", token: token).text,
                       #"{"status":"ok","messages":[{"id":12,"user_id":3,"user_fname":"Dana","user_lname":"Whitfield","message":"Check the front desk, they keep a box.","created_at":"2019-11-21 18:02:10"},"#
                       + #"{"id":11,"user_id":4,"user_fname":"Test","user_lname":"User","message":"Left it in the lecture hall on Tuesday.","created_at":"2019-11-21 18:02:10"}]}"#)
        let thread = #"{"id":5,"user_id":2,"user_fname":"Ervin","user_lname":"Sondag","title":"Old \/ new","created_at":"2023-11-14 22:13:20"}"#
        XCTAssertEqual(try post("/api/thread/add", form: "title=Old+%2F+new", token: token).text,
                       #"{"status":"ok","thread":\#(thread)}"#)
        XCTAssertTrue(try get("/api/thread", token: token).text.hasSuffix(",\(thread)]}"))
        let message = #"{"id":13,"user_id":2,"user_fname":"Ervin","user_lname":"Sondag","message":"hi","created_at":"2023-11-14 22:13:20"}"#
        XCTAssertEqual(try post("/api/message/add", form: "thread_id=5&message=hi", token: token).text,
                       #"{"status":"ok","message":\#(message)}"#)
        XCTAssertEqual(try get("/api/messages/5", token: token).text, #"{"status":"ok","messages":[\#(message)]}"#)
        // The route decides the list's shape; deletes and errors have one shape for everyone.
        XCTAssertEqual(try get("/api/threads", token: token).text.prefix(39), #"{"status":"ok","threads":[{"created_by""#)
        XCTAssertEqual(try get("/api/message/delete/13", token: token).text, #"{"status":"ok","message":"Message deleted"}"#)
        assertError(try get("/api/messages/99", token: token), 404, "Thread not found.")
    }

    func testOtherTokensKeepTheCurrentShapeEvenForTheSameUser() throws {
        let legacy = try login()
        let current = try login()
        _ = try get("/api/thread", token: legacy)
        XCTAssertEqual(try get("/api/messages/4", token: current).text,
                       #"{"status":"ok","messages":[{"created_by":{"fname":"Dana","lname":"Whitfield","user_id":3},"message_id":12,"message":"Check the front desk, they keep a box.","created_at":"2019-11-21 18:02:10"},"#
                       + #"{"created_by":{"fname":"Test","lname":"User","user_id":4},"message_id":11,"message":"Left it in the lecture hall on Tuesday.","created_at":"2019-11-21 18:02:10"}]}"#)
        XCTAssertEqual(try post("/api/thread/add", form: "title=t", token: current).text,
                       #"{"status":"ok","thread":{"created_by":{"fname":"Ervin","lname":"Sondag","user_id":2},"thread_id":5,"title":"t","created_at":"2023-11-14 22:13:20"}}"#)
        XCTAssertEqual(try post("/api/message/add", form: "thread_id=5&message=m", token: current).text,
                       #"{"status":"ok","message":{"created_by":{"fname":"Ervin","lname":"Sondag","user_id":2},"message_id":13,"message":"m","created_at":"2023-11-14 22:13:20"}}"#)
    }

    func testALegacySessionSurvivesAStateRoundTrip() throws {
        let token = try login()
        _ = try get("/api/thread", token: token)
        let exported = try server.request("GET", "/_mock/state/threads").text
        XCTAssertTrue(exported.contains(#"{"token":"\#(token)","user_id":2,"exp":1731536000,"legacy":true}"#), exported)
        XCTAssertEqual(try server.request("PUT", "/_mock/state/threads", body: exported).status, 200)
        XCTAssertEqual(try post("/api/thread/add", form: "title=t", token: token).text.prefix(33), #"{"status":"ok","thread":{"id":5,""#)
    }
}
