import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// Each API seeded with many rows (made here, not committed): the lookups that make a request cost
/// the same at 10 rows as at 100,000 must keep answering right after deletes, resets and state loads.
final class LargeSeedTests: XCTestCase {
    static let rows = 20_000

    private var folder: URL!
    private var server: TestServer!
    private var api: (any MockAPI)!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("large-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        server = nil
        api = nil
        try FileManager.default.removeItem(at: folder)
    }

    /// Serves one API from `document` written as its seed file; the clock stands still at `now`.
    private func serve(_ name: String, _ document: String, now: Date = Date(timeIntervalSince1970: 1_461_344_400)) throws {
        try Data(document.utf8).write(to: folder.appendingPathComponent("\(name).json"))
        var options = APIOptions()
        options.clock = { now }
        options.console = { _ in }
        let apis = try APICatalog.load([name], seed: SeedDirectory(url: folder), options: options)
        api = apis[0]
        server = try TestServer(responder: MockApp(apis: apis))
    }

    /// Reset, then the exported state loaded back: the round trip every test repeats its checks after.
    private func reloadExportedState() throws {
        let exported = api.exportState()
        api.reset()
        try api.loadState(SeedJSON(exported))
        XCTAssertEqual(api.exportState(), exported)
    }

    private func form(_ method: String, _ target: String, _ body: String) throws -> ClientResponse {
        try server.request(method, target, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body)
    }

    private func json(_ response: ClientResponse, file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
        XCTAssertEqual(response.status, 200, response.text, file: file, line: line)
        return try JSONParser.parse(response.body)
    }

    // MARK: WSUV Twitter

    /// `2016-01-01 00:00:00` plus `n` seconds.
    private static func wsuvStamp(_ n: Int) -> String {
        CivilTime(unixSeconds: 1_451_606_400 + n).sqlText
    }

    func testWSUVNamesAndTheDateIndex() throws {
        let n = Self.rows
        var document = #"{"users":["#
        document += (0..<n).map { #"{"username":"user \#($0)","password":"pw\#($0)","session_token":"0"}"# }.joined(separator: ",")
        document += #"],"tweets":["#
        document += (1...n).map {
            #"{"tweet_id":\#($0),"username":"user \#($0 % n)","time_stamp":"\#(Self.wsuvStamp($0))","tweet":"t\#($0)","isdeleted":0}"#
        }.joined(separator: ",")
        try serve("wsuv", document + "]}")
        let newest = Self.wsuvStamp(n).replacingOccurrences(of: " ", with: "%20")

        func ids(after date: String) throws -> [Int] {
            let tweets = try json(server.request("GET", "/get-tweets.cgi?date=\(date)")).objectValue?["tweets"]?.arrayValue
            return try XCTUnwrap(tweets).compactMap { $0.objectValue?["tweet_id"]?.intValue }
        }
        func login(_ user: Int) throws -> String {
            let answer = try json(form("POST", "/login.cgi", "username=user+\(user)&password=pw\(user)"))
            return try XCTUnwrap(answer.objectValue?["session_token"]?.stringValue)
        }

        // The banner and the index page list a few accounts and count the rest.
        XCTAssertEqual(api.summary.accounts.map(\.login), (0..<APISummary.listedAccounts).map { "user \($0)" })
        XCTAssertEqual(api.summary.unlistedAccounts, n - APISummary.listedAccounts)
        XCTAssertTrue(try server.request("GET", "/").text.contains("… and \(n - APISummary.listedAccounts) more accounts in the seed."))
        XCTAssertEqual(try ids(after: Self.wsuvStamp(n - 3).replacingOccurrences(of: " ", with: "%20")), [n - 2, n - 1, n])
        XCTAssertEqual(try ids(after: "2017").count, n)
        XCTAssertEqual(try ids(after: "2015").count, n)
        let token = try login(7)
        XCTAssertEqual(try form("POST", "/del-tweet.cgi", "username=user+7&session_token=\(token)&tweet_id=7").status, 200)
        XCTAssertEqual(try form("POST", "/add-tweet.cgi", "username=user+7&session_token=\(token)&tweet=new").status, 200)
        XCTAssertEqual(try ids(after: newest), [7, n + 1])
        XCTAssertEqual(try ids(after: Self.wsuvStamp(n - 2).replacingOccurrences(of: " ", with: "%20")), [7, n - 1, n, n + 1])
        XCTAssertEqual(try form("POST", "/register.cgi", "username=user+\(n - 1)&password=x").status, 409)
        XCTAssertEqual(try form("POST", "/register.cgi", "username=user+\(n)&password=x").status, 200)

        try reloadExportedState()
        XCTAssertEqual(try ids(after: newest), [7, n + 1])
        XCTAssertEqual(try form("POST", "/add-tweet.cgi", "username=user+7&session_token=\(token)&tweet=more").status, 200)
        XCTAssertEqual(try form("POST", "/del-tweet.cgi", "username=user+7&session_token=\(token)&tweet_id=7").status, 200)
        XCTAssertEqual(try ids(after: newest), [7, n + 1, n + 2])
        XCTAssertEqual(try form("POST", "/login.cgi", "username=user+\(n)&password=x").status, 200)

        // Reset goes back to the seed, not to the loaded state.
        api.reset()
        XCTAssertEqual(try ids(after: newest), [])
        XCTAssertEqual(try form("POST", "/register.cgi", "username=user+\(n)&password=y").status, 200)
        XCTAssertEqual(try login(n - 1).count, 40)
    }

    // MARK: cse118

    /// A lowercase UUID of a kind (1 member, 2 workspace, 3 channel, 4 message) and a number.
    private static func uuid(_ kind: Int, _ number: Int) -> String {
        "0000000\(kind)-0000-4000-8000-" + String(String(number, radix: 16).reversed()).padding(toLength: 12, withPad: "0", startingAt: 0)
    }

    func testCSE118IdsAndEachStudentsWorkspaces() throws {
        let n = Self.rows
        // Each student owns a fixture copy with one channel of two messages.
        let members = (0..<n).map {
            #"{"id":"\#(Self.uuid(1, $0))","name":"Student \#($0)","email":"s\#($0)@ucsc.edu","password":"pw\#($0)"}"#
        }
        let workspaces = (0..<n).map { k in
            let messages = (0..<2).map {
                #"{"id":"\#(Self.uuid(4, 2 * k + $0))","member":"\#(Self.uuid(1, k))","posted":"2015-01-01T00:00:0\#($0).000Z","content":"m\#($0)"}"#
            }
            return #"{"id":"\#(Self.uuid(2, k))","name":"W\#(k)","owner":"\#(Self.uuid(1, k))","fixtureOf":"\#(Self.uuid(1, k))","#
                + #""members":[],"channels":[{"id":"\#(Self.uuid(3, k))","name":"C\#(k)","messages":[\#(messages.joined(separator: ","))]}]}"#
        }
        try serve("cse118", #"{"members":[\#(members.joined(separator: ","))],"workspaces":[\#(workspaces.joined(separator: ","))]}"#)
        let client = CSE118Client(server: server)
        let k = n / 2, j = n - 1
        func workspaceNames(_ token: String) throws -> [String] {
            try client.jsonArray(client.call("GET", "/workspace", token: token)).compactMap { $0["name"] as? String }
        }
        func messageContents(_ token: String, channel: Int) throws -> [String] {
            let answer = try client.call("GET", "/channel/\(Self.uuid(3, channel))/message", token: token)
            return try client.jsonArray(answer).compactMap { $0["content"] as? String }
        }

        let token = try client.login(("s\(k)@ucsc.edu", "pw\(k)"))
        let other = try client.login(("s\(j)@ucsc.edu", "pw\(j)"))
        XCTAssertEqual(try workspaceNames(token), ["W\(k)"])
        XCTAssertEqual(try messageContents(token, channel: k), ["m0", "m1"])
        XCTAssertEqual(try client.call("GET", "/channel/\(Self.uuid(3, j))/message", token: token).status, 404)
        XCTAssertEqual(try client.call("DELETE", "/message/\(Self.uuid(4, 2 * j))", token: token).status, 404)
        XCTAssertEqual(try client.call("DELETE", "/message/\(Self.uuid(4, 2 * k))", token: token).status, 200)
        XCTAssertEqual(try client.call("POST", "/channel/\(Self.uuid(3, k))/message", token: token, body: #"{"content":"new"}"#).status, 201)
        XCTAssertEqual(try messageContents(token, channel: k), ["m1", "new"])
        let created = try client.json(client.call("POST", "/workspace", token: token, body: #"{"name":"Mine"}"#))
        let createdID = try XCTUnwrap(created["id"] as? String)
        XCTAssertEqual(try client.call("POST", "/workspace/\(createdID)/member?mid=\(Self.uuid(1, j))", token: token).status, 201)
        XCTAssertEqual(try workspaceNames(other), ["W\(j)", "Mine"])
        XCTAssertEqual(try client.call("DELETE", "/channel/\(Self.uuid(3, k))", token: token).status, 200)
        XCTAssertEqual(try client.call("GET", "/channel/\(Self.uuid(3, k))/message", token: token).status, 404)

        // The student's own reset: the created workspace goes (for its member too), the fixture comes back.
        XCTAssertEqual(try client.call("PUT", "/reset", token: token).status, 200)
        XCTAssertEqual(try workspaceNames(token), ["W\(k)"])
        XCTAssertEqual(try workspaceNames(other), ["W\(j)"])
        XCTAssertEqual(try messageContents(token, channel: k), ["m0", "m1"])
        XCTAssertEqual(try client.call("POST", "/workspace", token: token, body: #"{"name":"Kept"}"#).status, 201)
        XCTAssertEqual(try client.call("DELETE", "/message/\(Self.uuid(4, 2 * k + 1))", token: token).status, 200)

        try reloadExportedState()
        XCTAssertEqual(try workspaceNames(token), ["W\(k)", "Kept"])
        XCTAssertEqual(try messageContents(token, channel: k), ["m0"])
        XCTAssertEqual(try messageContents(other, channel: j), ["m0", "m1"])
        XCTAssertEqual(try client.call("DELETE", "/message/\(Self.uuid(4, 2 * k))", token: token).status, 200)

        // Reset goes back to the seed, not to the loaded state.
        api.reset()
        XCTAssertEqual(try client.call("GET", "/workspace", token: token).status, 403)
        let again = try client.login(("s\(k)@ucsc.edu", "pw\(k)"))
        XCTAssertEqual(try workspaceNames(again), ["W\(k)"])
        XCTAssertEqual(try messageContents(again, channel: k), ["m0", "m1"])
    }

    // MARK: threads

    func testThreadsIdsAndEmails() throws {
        let n = Self.rows
        let users = (1...n).map { #"{"user_id":\#($0),"email":"u\#($0)@x.com","password":"pw\#($0)","fname":"F","lname":"L"}"# }
        let threads = (1...n).map { #"{"thread_id":\#($0),"user_id":\#($0),"title":"T\#($0)","created_at":"2015-11-20 14:05:12"}"# }
        let seededMessages = (1...n).map { #"{"message_id":\#($0),"thread_id":\#($0),"user_id":\#($0),"message":"M\#($0)","created_at":"2015-11-20 14:05:12"}"# }
        try serve("threads", #"{"users":[\#(users.joined(separator: ","))],"threads":[\#(threads.joined(separator: ","))],"#
                  + #""messages":[\#(seededMessages.joined(separator: ","))],"tokens":[]}"#)
        let k = n / 2
        func login(_ user: Int) throws -> String {
            try XCTUnwrap(json(form("POST", "/api/login", "email=U\(user)%40X.com&password=pw\(user)")).objectValue?["token"]?.stringValue)
        }
        func messages(_ thread: Int, _ token: String) throws -> [String] {
            let answer = try server.request("GET", "/api/messages/\(thread)", headers: [("Authorization", "Bearer \(token)")])
            guard answer.status == 200 else { return ["status \(answer.status)"] }
            return try XCTUnwrap(JSONParser.parse(answer.body).objectValue?["messages"]?.arrayValue)
                .compactMap { $0.objectValue?["message"]?.stringValue }
        }
        func post(_ path: String, _ body: String, _ token: String) throws -> ClientResponse {
            try server.request("POST", path, headers: [("Content-Type", "application/x-www-form-urlencoded"),
                                                       ("Authorization", "Bearer \(token)")], body: body)
        }

        let token = try login(k)
        XCTAssertEqual(try messages(k, token), ["M\(k)"])
        XCTAssertEqual(try post("/api/message/add", "thread_id=\(k)&message=new", token).status, 200)
        XCTAssertEqual(try messages(k, token), ["new", "M\(k)"])
        XCTAssertEqual(try server.request("GET", "/api/thread/delete/\(k)", headers: [("Authorization", "Bearer \(token)")]).status, 200)
        XCTAssertEqual(try messages(k, token), ["status 404"])
        XCTAssertEqual(try form("POST", "/api/signup", "email=u\(k)%40x.com&password=p&fname=F&lname=L").status, 409)

        try reloadExportedState()
        XCTAssertEqual(try messages(k, token), ["status 404"])
        XCTAssertEqual(try messages(k + 1, token), ["M\(k + 1)"])
        XCTAssertEqual(try login(n).isEmpty, false)

        // Reset goes back to the seed, not to the loaded state: the deleted thread is back.
        api.reset()
        let fresh = try login(k)
        XCTAssertEqual(try messages(k, fresh), ["M\(k)"])
        XCTAssertEqual(try post("/api/message/add", "thread_id=\(k + 1)&message=again", fresh).status, 200)
        XCTAssertEqual(try messages(k + 1, fresh), ["again", "M\(k + 1)"])
    }

    // MARK: InternProducts

    func testInternProductsNamesAndTokens() throws {
        let n = Self.rows
        let users = (0..<n).map { #"{"username":"user\#($0)","password":"pw\#($0)","loginToken":"\#(600_000_000 + $0).000001"}"# }
        try serve("internproducts", #"{"users":[\#(users.joined(separator: ","))],"products":[]}"#)
        let k = n / 2
        func get(_ target: String) throws -> String { try json(server.request("GET", target)).objectValue?["status"]?.stringValue ?? "" }

        XCTAssertEqual(try server.request("GET", "/login?username=user\(k)&password=pw\(k)").text,
                       #"{"status":"SUCCESS","loginToken":"\#(600_000_000 + k).000001"}"#)
        XCTAssertEqual(try get("/products?loginToken=\(600_000_000 + k).000001"), "SUCCESS")
        XCTAssertEqual(try get("/register?username=user\(k)&password=x"), "FAILED")
        let registered = try XCTUnwrap(json(server.request("GET", "/register?username=new&password=x")).objectValue?["loginToken"]?.stringValue)
        XCTAssertEqual(try get("/products?loginToken=\(registered)"), "SUCCESS")

        try reloadExportedState()
        XCTAssertEqual(try get("/products?loginToken=\(registered)"), "SUCCESS")
        XCTAssertEqual(try get("/login?username=new&password=x"), "SUCCESS")
        XCTAssertEqual(try get("/login?username=user\(n - 1)&password=pw\(n - 1)"), "SUCCESS")

        // Reset goes back to the seed, not to the loaded state.
        api.reset()
        XCTAssertEqual(try get("/login?username=new&password=x"), "FAILED")
        XCTAssertEqual(try get("/register?username=newer&password=x"), "SUCCESS")
        XCTAssertEqual(try get("/login?username=user0&password=pw0"), "SUCCESS")
    }

    /// Users without a token, among many with one: each is found by name after the index is
    /// rebuilt, they follow the others in the export, and their tokens are minted after every given one.
    func testInternProductsUsersWithoutTokensAmongMany() throws {
        let n = Self.rows
        let users = (0..<n).map { i in
            i % 3 == 0 ? #"{"username":"u\#(i)","password":"p\#(i)"}"#
                : #"{"username":"u\#(i)","password":"p\#(i)","loginToken":"\#(600_000_000 + i).000001"}"#
        }
        // The clock stands on the first given token: minting must step over every given one.
        try serve("internproducts", #"{"users":[\#(users.joined(separator: ","))],"products":[]}"#,
                  now: Date(timeIntervalSinceReferenceDate: 600_000_001.000_001))
        func token(_ i: Int) throws -> String {
            try XCTUnwrap(json(server.request("GET", "/login?username=u\(i)&password=p\(i)")).objectValue?["loginToken"]?.stringValue)
        }
        XCTAssertEqual(try token(0), "600000001.000002")
        XCTAssertEqual(try token(3), "600000001.000003")
        XCTAssertEqual(try token(1), "600000001.000001")
        XCTAssertEqual(try token(n - 1), "\(600_000_000 + n - 1).000001")
        let exported = try JSONParser.parse(api.exportState()).objectValue?["users"]?.arrayValue ?? []
        let names = exported.compactMap { $0.objectValue?["username"]?.stringValue }
        XCTAssertEqual(names, (0..<n).filter { $0 % 3 != 0 }.map { "u\($0)" } + (0..<n).filter { $0 % 3 == 0 }.map { "u\($0)" })

        // A name given twice is refused at its second place, with or without tokens.
        for (first, second) in [(0, n - 3), (1, n - 2), (3, n - 1)] {
            var twice = users
            twice[second] = twice[first].replacingOccurrences(of: "p\(first)", with: "other")
            XCTAssertThrowsError(try api.loadState(SeedJSON(Array(#"{"users":[\#(twice.joined(separator: ","))],"products":[]}"#.utf8)))) { error in
                XCTAssertEqual(error as? SeedError, SeedError(path: "$.users[\(second)].username", problem: "duplicate username u\(first)"))
            }
        }
    }

    // MARK: OTP

    func testOTPPhonesAndTokens() throws {
        let n = Self.rows
        func padded(_ prefix: String, _ number: Int, _ length: Int) -> String {
            prefix + String(repeating: "0", count: length - prefix.count - String(number).count) + String(number)
        }
        let users = (0..<n).map {
            #"{"user_id":"\#(padded("u", $0, 24))","e164_phone_number":"+1530\#(2_000_000 + $0)","name":"N\#($0)","#
                + #""keyfile_password":"\#(padded("k", $0, 32))","auth_tokens":["\#(padded("t", $0, 32))"]}"#
        }
        try Data(#"{"users":[\#(users.joined(separator: ","))]}"#.utf8).write(to: folder.appendingPathComponent("otp.json"))
        var options = APIOptions()
        options.otpCode = "123456"
        options.console = { _ in }
        let apis = try APICatalog.load(["otp"], seed: SeedDirectory(url: folder), options: options)
        api = apis[0]
        server = try TestServer(responder: MockApp(apis: apis))
        let k = n / 2
        func call(_ path: String, _ body: String, token: String? = nil) throws -> JSONObject {
            let headers = token.map { [("x-authtoken", $0)] } ?? []
            return try XCTUnwrap(json(server.request("POST", path, headers: headers, body: body)).objectValue)
        }
        func verify(_ phone: String) throws -> JSONObject {
            XCTAssertEqual(try call("/api/send_verification_code", #"{"phone_number":"\#(phone)"}"#)["status"]?.stringValue, "ok")
            return try call("/api/verify_code", #"{"e164_phone_number":"\#(phone)","code":"123456"}"#)
        }
        func name(_ token: String) throws -> String? {
            try call("/api/user", "{}", token: token)["user"]?.objectValue?["name"]?.stringValue
        }

        XCTAssertEqual(try name(padded("t", k, 32)), "N\(k)")
        let known = try verify("+1530\(2_000_000 + k)")
        XCTAssertEqual(known["is_new_user"]?.intValue, 0)
        let newToken = try XCTUnwrap(known["auth_token"]?.stringValue)
        XCTAssertEqual(try name(newToken), "N\(k)")
        XCTAssertEqual(try verify("+15309999999")["is_new_user"]?.intValue, 1)

        try reloadExportedState()
        XCTAssertEqual(try name(newToken), "N\(k)")
        XCTAssertEqual(try verify("+15309999999")["is_new_user"]?.intValue, 0)

        // Reset goes back to the seed, not to the loaded state: tokens issued since are gone.
        api.reset()
        XCTAssertNil(try name(newToken))
        XCTAssertEqual(try name(padded("t", n - 1, 32)), "N\(n - 1)")
    }
}
