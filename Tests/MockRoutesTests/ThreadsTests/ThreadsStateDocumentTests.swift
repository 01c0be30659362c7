import Foundation
import MockApp
import MockHTTP
import MockKit
import TestSupport
import XCTest

/// Threads state documents loaded over `PUT /_mock/state/threads`, the path seeds, `--state` files and
/// `--watch` share: rows in any order, every rule a row can break, and thread message lists kept
/// right through adds and deletes.
final class ThreadsStateDocumentTests: XCTestCase {
    private var server: TestServer!

    override func setUpWithError() throws {
        var options = APIOptions()
        options.clock = { Date(timeIntervalSince1970: 1_700_000_000) }  // 2023-11-14 22:13:20 UTC
        server = try TestServer(apis: ["threads"], options: options)
    }

    override func tearDown() {
        server = nil
    }

    // MARK: Helpers

    private func user(_ id: Int, _ email: String) -> String {
        #"{"user_id":\#(id),"email":"\#(email)","password":"pw","fname":"F\#(id)","lname":"L\#(id)"}"#
    }

    private func thread(_ id: Int, user: Int, at stamp: String = "2019-11-20 14:05:12") -> String {
        #"{"thread_id":\#(id),"user_id":\#(user),"title":"T\#(id)","created_at":"\#(stamp)"}"#
    }

    private func message(_ id: Int, thread: Int, user: Int = 1, at stamp: String = "2019-11-20 14:05:12") -> String {
        #"{"message_id":\#(id),"thread_id":\#(thread),"user_id":\#(user),"message":"M\#(id)","created_at":"\#(stamp)"}"#
    }

    private func document(users: [String], threads: [String] = [], messages: [String] = []) -> String {
        #"{"users":[\#(users.joined(separator: ","))],"threads":[\#(threads.joined(separator: ","))],"#
            + #""messages":[\#(messages.joined(separator: ","))]}"#
    }

    private func load(_ document: String) throws -> ClientResponse {
        try server.request("PUT", "/_mock/state/threads", body: Array(document.utf8))
    }

    private func assertRefused(_ document: String, _ path: String, _ detail: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let answer = try load(document)
        XCTAssertEqual(answer.status, 400, file: file, line: line)
        XCTAssertEqual(answer.text, #"{"error":"invalid_state","path":"\#(path)","detail":"\#(detail)"}"#, file: file, line: line)
    }

    private func login(_ email: String, _ password: String = "pw") throws -> String {
        let answer = try server.request("POST", "/api/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                        body: Array("email=\(email)&password=\(password)".utf8))
        XCTAssertEqual(answer.status, 200, answer.text)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        return try XCTUnwrap(object["token"] as? String)
    }

    private func get(_ path: String, _ token: String) throws -> ClientResponse {
        try server.request("GET", path, headers: [("Authorization", "Bearer \(token)")])
    }

    private func post(_ path: String, _ body: String, _ token: String) throws -> ClientResponse {
        try server.request("POST", path, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", "Bearer \(token)")],
                           body: Array(body.utf8))
    }

    /// The `message` texts of a thread's list, in the order the answer gives them.
    private func texts(_ thread: Int, _ token: String) throws -> [String] {
        let answer = try get("/api/messages/\(thread)", token)
        guard answer.status == 200 else { return ["status \(answer.status)"] }
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        return try XCTUnwrap(object["messages"] as? [[String: Any]]).map { $0["message"] as! String }
    }

    // MARK: Loading

    /// A string of 128 MiB or more (longer than a text span can count) is kept apart, served and
    /// saved byte for byte, and given back with its row. Only a seed or state file can hold one.
    func testASeedMessageOf128MiBOrMoreIsServedAndSavedAsItCame() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("threads-long-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let long = "<" + String(repeating: "a", count: 128 << 20) + ">"
        let seed = document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1)],
                            messages: [message(1, thread: 1).replacingOccurrences(of: "\"M1\"", with: "\"\(long)\"")])
        try Data(seed.utf8).write(to: folder.appendingPathComponent("threads.json"))
        let apis = try APICatalog.load(["threads"], seed: SeedDirectory(url: folder), options: APIOptions())
        server = try TestServer(responder: MockApp(apis: apis))

        // The answers are 128 MiB: room for a slow machine to write them.
        func slowGet(_ target: String, _ headers: [(String, String)] = []) throws -> ClientResponse {
            let client = try server.connect(timeout: 300)
            client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n")
            return try client.readResponse()
        }
        let saved = seed.replacingOccurrences(of: #""lname":"L1"}"#, with: #""lname":"L1","role":"USER"}"#).dropLast()
            + #","tokens":[],"next_ids":{"user":2,"thread":2,"message":2}}"#
        let exported = try slowGet("/_mock/state/threads").text
        XCTAssertTrue(exported == saved, "the saved state differs from the seed: \(exported.prefix(300)) … \(exported.suffix(300))")
        let token = try login("a@x.com")
        let listed = try slowGet("/api/messages/1", [("Authorization", "Bearer \(token)")])
        XCTAssertEqual(listed.status, 200)
        XCTAssertTrue(listed.text.contains("\"message\":\"\(long)\""), "the message differs from the seed")
        XCTAssertEqual(try post("/api/thread/delete/1", "", token).status, 200)
        let emptied = try server.request("GET", "/_mock/state/threads").text
        XCTAssertTrue(emptied.hasPrefix(#"{"users":[{"user_id":1,"email":"a@x.com","password":"pw","fname":"F1","lname":"L1","role":"USER"}],"#
                                        + #""threads":[],"messages":[],"tokens":"#), emptied)
    }

    func testRowsOutOfIDOrderAreServedAndSavedInIDOrder() throws {
        // Messages 1 and 3 share a second: the higher id comes first. Thread 2's stamp has an escaped space.
        let document = document(
            users: [user(3, "Dana@X.com"), user(1, "b@b.com"), user(2, "kate@x.com")],
            threads: [thread(2, user: 1, at: #"2019-11-20\u002014:05:12"#), thread(1, user: 3, at: "2019-11-21 09:00:00")],
            messages: [message(3, thread: 1, at: "2019-11-21 09:30:00"), message(2, thread: 2), message(1, thread: 1, at: "2019-11-21 09:30:00"),
                       message(4, thread: 1, user: 3, at: "2019-11-21 09:10:00")])
        XCTAssertEqual(try load(document).text, #"{"loaded":"threads"}"#)
        let token = try login("dana@x.COM")
        XCTAssertEqual(try get("/api/threads", token).text,
                       #"{"status":"ok","threads":[{"created_by":{"fname":"F3","lname":"L3","user_id":3},"thread_id":1,"title":"T1","created_at":"2019-11-21 09:00:00"},"#
                        + #"{"created_by":{"fname":"F1","lname":"L1","user_id":1},"thread_id":2,"title":"T2","created_at":"2019-11-20 14:05:12"}]}"#)
        XCTAssertEqual(try texts(1, token), ["M3", "M1", "M4"])
        XCTAssertEqual(try texts(2, token), ["M2"])
        XCTAssertEqual(try server.request("GET", "/_mock/state/threads").text,
                       #"{"users":[{"user_id":1,"email":"b@b.com","password":"pw","fname":"F1","lname":"L1","role":"USER"},"#
                        + #"{"user_id":2,"email":"kate@x.com","password":"pw","fname":"F2","lname":"L2","role":"USER"},"#
                        + #"{"user_id":3,"email":"Dana@X.com","password":"pw","fname":"F3","lname":"L3","role":"USER"}],"#
                        + #""threads":[{"thread_id":1,"user_id":3,"title":"T1","created_at":"2019-11-21 09:00:00"},"#
                        + #"{"thread_id":2,"user_id":1,"title":"T2","created_at":"2019-11-20 14:05:12"}],"#
                        + #""messages":[{"message_id":1,"thread_id":1,"user_id":1,"message":"M1","created_at":"2019-11-21 09:30:00"},"#
                        + #"{"message_id":2,"thread_id":2,"user_id":1,"message":"M2","created_at":"2019-11-20 14:05:12"},"#
                        + #"{"message_id":3,"thread_id":1,"user_id":1,"message":"M3","created_at":"2019-11-21 09:30:00"},"#
                        + #"{"message_id":4,"thread_id":1,"user_id":3,"message":"M4","created_at":"2019-11-21 09:10:00"}],"#
                        + #""tokens":[{"token":"\#(token)","user_id":3,"exp":1731536000}],"next_ids":{"user":4,"thread":3,"message":5}}"#)
    }

    func testEmailsMatchInAnyLetterCaseUnicodeIncluded() throws {
        // U+212A KELVIN SIGN lowercases to the ASCII k, É to é; the answer keeps each address as stored.
        XCTAssertEqual(try load(document(users: [user(1, "\u{212A}ate@x.com"), user(2, "ÉLodie@X.com"), user(3, "plain@x.com")])).status, 200)
        let kate = try server.request("POST", "/api/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                      body: Array("email=KATE%40X.COM&password=pw".utf8))
        XCTAssertTrue(kate.text.contains(#""user_id":1,"user_email":"\#u{212A}ate@x.com""#), kate.text)
        XCTAssertFalse(try login("%C3%A9lodie%40x.com").isEmpty)
        XCTAssertFalse(try login("PLAIN%40x.com").isEmpty)
        let taken = try server.request("POST", "/api/signup", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                       body: Array("email=%C3%A9LODIE%40x.com&password=p&fname=F&lname=L".utf8))
        XCTAssertEqual(taken.status, 409, taken.text)
    }

    /// The id after the largest would overflow: such a document used to end the server.
    func testTheLargestIDIsRefusedForLeavingNoNextOne() throws {
        let largest = Int.max
        try assertRefused(document(users: [user(largest, "a@x.com")]), "$.users[0].user_id", "must be below \(largest)")
        try assertRefused(document(users: [user(1, "a@x.com")], threads: [thread(largest, user: 1)]), "$.threads[0].thread_id", "must be below \(largest)")
        try assertRefused(document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1)], messages: [message(largest, thread: 1)]),
                          "$.messages[0].message_id", "must be below \(largest)")
        XCTAssertEqual(try load(document(users: [user(largest - 1, "a@x.com")])).text, #"{"loaded":"threads"}"#)
    }

    /// Rows just below the largest id: the last ids are given out, then each create is a 500 in the
    /// API's format that changes nothing, where the counter used to overflow and end the server.
    func testCreatesPastTheLastIDAreRefusedAndTheServerGoesOn() throws {
        let last = Int.max - 1
        XCTAssertEqual(try load(document(users: [user(last - 1, "a@x.com")], threads: [thread(last, user: last - 1)],
                                         messages: [message(last - 1, thread: last, user: last - 1)])).status, 200)
        let token = try login("a@x.com")
        let form = ("Content-Type", "application/x-www-form-urlencoded")
        let bearer = ("Authorization", "BEARER \(token)")
        func post(_ path: String, _ body: String, signedIn: Bool = true) throws -> ClientResponse {
            try server.request("POST", path, headers: signedIn ? [form, bearer] : [form], body: Array(body.utf8))
        }
        let signup = "email=b%40x.com&password=pw&fname=F&lname=L"
        XCTAssertTrue(try post("/api/signup", signup, signedIn: false).text.contains(#""user_id":\#(last),"#))
        let noUserID = try post("/api/signup", "email=c%40x.com&password=pw&fname=F&lname=L", signedIn: false)
        XCTAssertEqual(noUserID.status, 500)
        XCTAssertEqual(noUserID.text, #"{"status":"error","message":"No user id is left."}"#)
        XCTAssertEqual(noUserID.headers["Content-Type"], "application/json; charset=utf-8")
        let noThreadID = try post("/api/thread/add", "title=T")
        XCTAssertEqual(noThreadID.status, 500)
        XCTAssertEqual(noThreadID.text, #"{"status":"error","message":"No thread id is left."}"#)
        XCTAssertTrue(try post("/api/message/add", "thread_id=\(last)&message=M").text.contains(#""message_id":\#(last),"#))
        let noMessageID = try post("/api/message/add", "thread_id=\(last)&message=M")
        XCTAssertEqual(noMessageID.status, 500)
        XCTAssertEqual(noMessageID.text, #"{"status":"error","message":"No message id is left."}"#)
        // Nothing was stored by the refused creates, and the server answers as before.
        let messages = try server.request("GET", "/api/messages/\(last)", headers: [bearer])
        XCTAssertEqual(messages.text.components(separatedBy: #""message_id""#).count - 1, 2, messages.text)
        XCTAssertEqual(try post("/api/login", "email=c%40x.com&password=pw", signedIn: false).status, 401)
        XCTAssertEqual(try server.request("GET", "/api/threads", headers: [bearer]).status, 200)
    }

    func testEveryBrokenRowIsNamedWithTheOldMessage() throws {
        try assertRefused(document(users: [user(2, "a@x.com"), user(1, "b@x.com"), user(2, "c@x.com")]), "$.users[2]", "duplicate user_id 2")
        try assertRefused(document(users: [user(1, "a@x.com"), user(1, "b@x.com")]), "$.users[1]", "duplicate user_id 1")
        try assertRefused(document(users: [user(1, "a@x.com"), user(2, "A@X.com")]), "$.users[1]", "duplicate email A@X.com")
        try assertRefused(document(users: [user(1, "kate@x.com"), user(2, "\u{212A}ate@x.com")]), "$.users[1]", "duplicate email \u{212A}ate@x.com")
        // The first bad row is named, whatever is wrong with the rows after it.
        try assertRefused(document(users: [user(1, "a@x.com"), user(2, "A@X.com"), user(2, "c@x.com")]), "$.users[1]", "duplicate email A@X.com")
        try assertRefused(document(users: [user(1, "a@x.com"), user(2, "A@X.com"), #"{"user_id":3}"#]), "$.users[1]", "duplicate email A@X.com")
        try assertRefused(document(users: [user(1, "a@x.com"), #"{"user_id":3}"#, user(2, "A@X.com")]), "$.users[1].email", "missing")
        try assertRefused(document(users: [user(1, "a@x.com")], threads: [thread(3, user: 1), thread(1, user: 1), thread(3, user: 1)]),
                          "$.threads[2]", "duplicate thread_id 3")
        try assertRefused(document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1), thread(2, user: 9)]), "$.threads[1]", "user_id 9 is not a user")
        try assertRefused(document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1)], messages: [message(2, thread: 1), message(1, thread: 1), message(2, thread: 1)]),
                          "$.messages[2]", "duplicate message_id 2")
        try assertRefused(document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1)], messages: [message(1, thread: 2)]),
                          "$.messages[0]", "thread_id 2 is not a thread")
        try assertRefused(document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1)], messages: [message(1, thread: 1, user: 5)]),
                          "$.messages[0]", "user_id 5 is not a user")
        for stamp in ["2019-02-29 00:00:00", "2019-11-20T14:05:12", "2019-11-20 14:05:1", "2019-11-20 24:00:00", "2019-13-01 00:00:00",
                      "2019-11-20 14:05:123", "2019-11-00 14:05:12", "+019-11-20 14:05:12", "2019-11-20 14:60:00"] {
            try assertRefused(document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1, at: stamp)]),
                              "$.threads[0].created_at", "expected YYYY-MM-DD HH:MM:SS, got \(stamp)")
        }
        try assertRefused(document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1)], messages: [message(1, thread: 1, at: #"2019-13-01\u002000:00:00"#)]),
                          "$.messages[0].created_at", "expected YYYY-MM-DD HH:MM:SS, got 2019-13-01 00:00:00")
        let number = document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1)]).replacingOccurrences(of: #""2019-11-20 14:05:12""#, with: "20191120")
        try assertRefused(number, "$.threads[0].created_at", "expected a string")
        // Nothing was loaded: the shipped seed still answers.
        XCTAssertFalse(try login("a%40a.com", "test123").isEmpty)
    }

    func testEmailsAreFoundAmongManyUsersInAnyIDOrder() throws {
        // Enough users that the email index grows while the seed is read; in descending id order
        // the index is filed by document order first, by id order once the rows are sorted.
        func login(_ email: String) throws -> ClientResponse {
            try server.request("POST", "/api/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                               body: Array("email=\(email)&password=pw".utf8))
        }
        for ids in [Array(1...40), Array((1...40).reversed())] {
            try assertRefused(document(users: ids.map { user($0, "User\($0)@X.com") } + [user(41, "user\(ids[0])@x.COM")]),
                              "$.users[40]", "duplicate email user\(ids[0])@x.COM")
            XCTAssertEqual(try load(document(users: ids.map { user($0, "User\($0)@X.com") })).status, 200)
            for id in ids {
                XCTAssertTrue(try login("user\(id)%40x.com").text.contains(#""user_id":\#(id),"user_email":"User\#(id)@X.com""#), "user \(id)")
            }
            XCTAssertEqual(try login("user41%40x.com").status, 401)
        }
        let signup = "/api/signup", form = [("Content-Type", "application/x-www-form-urlencoded")]
        XCTAssertEqual(try server.request("POST", signup, headers: form, body: Array("email=USER7%40x.com&password=p&fname=F&lname=L".utf8)).status, 409)
        // The index is made at the seed's size: signups grow it.
        for id in 41...100 {
            let body = "email=New\(id)%40x.com&password=pw&fname=F&lname=L"
            XCTAssertEqual(try server.request("POST", signup, headers: form, body: Array(body.utf8)).status, 200, "signup \(id)")
        }
        for id in 1...100 {
            let email = id > 40 ? "New\(id)@x.com" : "User\(id)@X.com"
            XCTAssertTrue(try login("\(email.uppercased())").text.contains(#""user_id":\#(id),"user_email":"\#(email)""#), "user \(id)")
        }
        XCTAssertEqual(try server.request("POST", signup, headers: form, body: Array("email=new77%40X.COM&password=p&fname=F&lname=L".utf8)).status, 409)
    }

    func testStringsKeepTheirTextThroughEscapesAndManyDeletes() throws {
        let users = [#"{"user_id":1,"email":"a@x.com","password":"p\/w","fname":"F\u00e9","lname":"Müller","role":""}"#,
                     #"{"user_id":3,"email":"b@x.com","password":"1234567","fname":"12345678","lname":"é12345","role":"é123456"}"#,
                     #"{"user_id":2,"email":"second.user@example.com","password":"pw","fname":"F2","lname":"L2","role":null}"#]
        let threads = [#"{"thread_id":1,"user_id":1,"title":"Say \"hi\"","created_at":"2019-11-20 14:05:12"}"#]
        let messages = [#"{"message_id":1,"thread_id":1,"user_id":2,"message":"A message longer than fifteen bytes","created_at":"2019-11-20 14:05:12"}"#]
        XCTAssertEqual(try load(#"{"users":[\#(users.joined(separator: ","))],"threads":[\#(threads.joined(separator: ","))],"messages":[\#(messages.joined(separator: ","))]}"#).status, 200)
        let token = try login("second.user@example.com")
        XCTAssertFalse(try login("a@x.com", "p%2Fw").isEmpty)
        XCTAssertFalse(try login("b@x.com", "1234567").isEmpty)
        let saved = try server.request("GET", "/_mock/state/threads").text
        XCTAssertTrue(saved.hasPrefix(#"{"users":[{"user_id":1,"email":"a@x.com","password":"p/w","fname":"Fé","lname":"Müller","role":""},"#
                                      + #"{"user_id":2,"email":"second.user@example.com","password":"pw","fname":"F2","lname":"L2","role":"USER"},"#
                                      + #"{"user_id":3,"email":"b@x.com","password":"1234567","fname":"12345678","lname":"é12345","role":"é123456"}],"#
                                      + #""threads":[{"thread_id":1,"user_id":1,"title":"Say \"hi\"","created_at":"2019-11-20 14:05:12"}],"#
                                      + #""messages":[{"message_id":1,"thread_id":1,"user_id":2,"message":"A message longer than fifteen bytes","#), saved)
        // 100 KB of messages, then most of them deleted out of order: past half of the text the
        // strings still in use move, and every row keeps its own.
        let long = String(repeating: "x", count: 1_000)
        for n in 2...101 { XCTAssertEqual(try post("/api/message/add", "thread_id=1&message=\(n)\(long)", token).status, 200) }
        for n in stride(from: 101, through: 2, by: -1) where n % 10 != 0 {
            XCTAssertEqual(try get("/api/message/delete/\(n)", token).status, 200, "message \(n)")
        }
        XCTAssertEqual(try texts(1, token), stride(from: 100, through: 10, by: -10).map { "\($0)\(long)" } + ["A message longer than fifteen bytes"])
        for n in stride(from: 100, through: 10, by: -10) { XCTAssertEqual(try get("/api/message/delete/\(n)", token).status, 200) }
        XCTAssertEqual(try post("/api/thread/add", "title=New", token).status, 200)
        let after = try server.request("GET", "/_mock/state/threads").text
        XCTAssertEqual(after.prefix(while: { $0 != "]" }), saved.prefix(while: { $0 != "]" }))
        XCTAssertTrue(after.contains(#"{"thread_id":2,"user_id":2,"title":"New","#), after)
        XCTAssertTrue(after.contains(#""messages":[{"message_id":1,"thread_id":1,"user_id":2,"message":"A message longer than fifteen bytes","#), after)
        XCTAssertFalse(try login("a@x.com", "p%2Fw").isEmpty)
        XCTAssertFalse(try login("SECOND.user@example.com").isEmpty)
    }

    func testStampsKeepTheirBytesWhateverTheSpacingAround() throws {
        let spaced = #"{ "users" : [ { "user_id" : 1 , "email" : "a@x.com" , "password" : "pw" , "fname" : "F" , "lname" : "L" } ] ,"#
            + #" "threads" : [ { "created_at" : "0000-01-01 00:00:00" , "thread_id" : 1 , "user_id" : 1 , "title" : "T" } ,"#
            + #"{"thread_id":2,"user_id":1,"title":"U","created_at":"9999-12-31 23:59:59"}],"#
            + #" "messages" : [ { "message_id" : 1 , "thread_id" : 2 , "user_id" : 1 , "message" : "M" , "created_at" : "2016-02-29 12:00:00" } ] }"#
        XCTAssertEqual(try load(spaced).status, 200)
        let state = try server.request("GET", "/_mock/state/threads").text
        XCTAssertTrue(state.contains(#""threads":[{"thread_id":1,"user_id":1,"title":"T","created_at":"0000-01-01 00:00:00"},"#
                                     + #"{"thread_id":2,"user_id":1,"title":"U","created_at":"9999-12-31 23:59:59"}],"#
                                     + #""messages":[{"message_id":1,"thread_id":2,"user_id":1,"message":"M","created_at":"2016-02-29 12:00:00"}]"#), state)
    }

    func testStampsOneAfterAnotherKeepTheirDates() throws {
        // Read in a row, stamps of one day share its date; each new day is checked on its own.
        let stamps = ["2019-11-20 14:05:12", "2019-11-20 14:05:13", "2019-11-20 00:00:00", "2019-11-21 23:59:59", "2019-11-21 00:00:00",
                      "2020-02-29 12:00:00", "2019-11-20 14:05:12"]
        try assertRefused(document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1), thread(2, user: 1, at: "2019-11-20 24:05:12")]),
                          "$.threads[1].created_at", "expected YYYY-MM-DD HH:MM:SS, got 2019-11-20 24:05:12")
        try assertRefused(document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1, at: "2019-02-28 10:00:00"), thread(2, user: 1, at: "2019-02-29 10:00:00")]),
                          "$.threads[1].created_at", "expected YYYY-MM-DD HH:MM:SS, got 2019-02-29 10:00:00")
        XCTAssertEqual(try load(document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1)],
                                         messages: stamps.enumerated().map { message($0.offset + 1, thread: 1, at: $0.element) })).status, 200)
        let state = try server.request("GET", "/_mock/state/threads").text
        for (index, stamp) in stamps.enumerated() {
            XCTAssertTrue(state.contains(#""message":"M\#(index + 1)","created_at":"\#(stamp)"}"#), stamp)
        }
    }

    func testIDsWithGapsAndAtTheEndsOfTheRangeAreFoundThroughManyDeletes() throws {
        let highest = Int.max - 1, lowest = Int.min
        let threadIDs = [lowest] + Array(3...62) + [1_000_000_000_000_000, highest]
        let document = document(users: [user(-5, "low@x.com"), user(7, "a@x.com"), user(1 << 40, "far@x.com")],
                                threads: threadIDs.map { thread($0, user: 7) },
                                messages: threadIDs.enumerated().map { message($0.offset + 1, thread: $0.element, user: 1 << 40) })
        XCTAssertEqual(try load(document).status, 200)
        let token = try login("a@x.com")
        XCTAssertEqual(try texts(highest, token), ["M63"])
        XCTAssertEqual(try texts(1_000_000_000_000_000, token), ["M62"])
        XCTAssertEqual(try texts(3, token), ["M2"])
        for missing in [2, 63, 999_999_999_999_999, highest - 1] {
            XCTAssertEqual(try texts(missing, token), ["status 404"], "thread \(missing)")
        }
        // Past half of the rows gone, what remains is found as before.
        for id in 3...50 { XCTAssertEqual(try get("/api/thread/delete/\(id)", token).status, 200, "thread \(id)") }
        XCTAssertEqual(try texts(50, token), ["status 404"])
        XCTAssertEqual(try texts(51, token), ["M50"])
        XCTAssertEqual(try texts(highest, token), ["M63"])
        let far = try login("far@x.com")
        for id in 50...60 { XCTAssertEqual(try get("/api/message/delete/\(id)", far).status, 200, "message \(id)") }
        XCTAssertEqual(try get("/api/message/delete/49", far).status, 404)
        XCTAssertEqual(try texts(61, token), [])
        XCTAssertEqual(try texts(62, token), ["M61"])
        XCTAssertEqual(try post("/api/message/add", "thread_id=62&message=new", token).status, 200)
        XCTAssertEqual(try texts(62, token), ["new", "M61"])
        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try get("/api/threads", token).body)) as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(list["threads"] as? [[String: Any]]).map { $0["thread_id"] as! Int },
                       [lowest] + Array(51...62) + [1_000_000_000_000_000, highest])
    }

    // MARK: A thread's messages

    func testAThreadsFirstMessageHasNoneBeforeItWhateverTheIDs() throws {
        let document = document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1), thread(2, user: 1)],
                                messages: [message(Int.min, thread: 2), message(-1, thread: 1), message(0, thread: 2), message(1, thread: 1)])
        XCTAssertEqual(try load(document).status, 200)
        let token = try login("a@x.com")
        XCTAssertEqual(try texts(1, token), ["M1", "M-1"])
        XCTAssertEqual(try texts(2, token), ["M0", "M\(Int.min)"])
        XCTAssertEqual(try get("/api/message/delete/0", token).status, 200)  // ids in paths are digits only
        XCTAssertEqual(try texts(2, token), ["M\(Int.min)"])
        XCTAssertEqual(try post("/api/message/add", "thread_id=2&message=new", token).status, 200)
        XCTAssertEqual(try texts(2, token), ["new", "M\(Int.min)"])
    }

    func testThreadMessagesStayRightThroughDeletesAndAdds() throws {
        let document = document(users: [user(1, "a@x.com")], threads: [thread(1, user: 1), thread(2, user: 1)],
                                messages: (1...5).map { message($0, thread: $0 == 3 ? 2 : 1, at: "2019-11-20 14:05:1\($0)") })
        XCTAssertEqual(try load(document).status, 200)
        let token = try login("a@x.com")
        XCTAssertEqual(try texts(1, token), ["M5", "M4", "M2", "M1"])
        XCTAssertEqual(try get("/api/message/delete/2", token).status, 200)  // in the middle
        XCTAssertEqual(try texts(1, token), ["M5", "M4", "M1"])
        XCTAssertEqual(try get("/api/message/delete/5", token).status, 200)  // the newest
        XCTAssertEqual(try texts(1, token), ["M4", "M1"])
        XCTAssertEqual(try post("/api/message/add", "thread_id=1&message=new", token).status, 200)
        XCTAssertEqual(try texts(1, token), ["new", "M4", "M1"])
        XCTAssertEqual(try get("/api/message/delete/1", token).status, 200)  // the oldest
        XCTAssertEqual(try texts(1, token), ["new", "M4"])
        XCTAssertEqual(try get("/api/message/delete/4", token).status, 200)
        XCTAssertEqual(try get("/api/message/delete/6", token).status, 200)
        XCTAssertEqual(try texts(1, token), [])
        XCTAssertEqual(try post("/api/message/add", "thread_id=1&message=again", token).status, 200)
        XCTAssertEqual(try texts(1, token), ["again"])
        XCTAssertEqual(try texts(2, token), ["M3"])
        XCTAssertEqual(try get("/api/thread/delete/2", token).status, 200)
        XCTAssertEqual(try get("/api/message/delete/3", token).text, #"{"status":"error","message":"Message not found."}"#)
        XCTAssertEqual(try texts(1, token), ["again"])
    }
}
