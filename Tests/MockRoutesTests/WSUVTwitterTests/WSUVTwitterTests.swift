import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// WSUV Twitter over real sockets, sent the way Alamofire and AFNetworking sent it: form bodies typed
/// `application/x-www-form-urlencoded; charset=utf-8`, keys escaped with `%20` and `%3A`.
final class WSUVTwitterTests: XCTestCase {
    static let prefixes = ["", "/cgi-bin", "/~cs458/cgi-bin", "/~wcochran/cgi-bin"]
    static let formType = "application/x-www-form-urlencoded; charset=utf-8"
    /// 2016-04-22 10:00:00 in Vancouver, WA (PDT, UTC-7).
    static let afterSemester = Date(timeIntervalSince1970: 1_461_344_400)

    private var server: TestServer!
    private var api: (any MockAPI)!
    /// The injected clock every time stamp reads.
    private let now = Locked(WSUVTwitterTests.afterSemester)

    override func setUpWithError() throws {
        try start()
    }

    override func tearDown() {
        server = nil
        api = nil
    }

    /// `memoryBudget`: what stored text is charged to (half of it), as `--memory-budget` does.
    private func start(timeZone: TimeZone? = nil, memoryBudget: Int? = nil, rowLimit: Int? = nil) throws {
        var options = APIOptions()
        let now = self.now
        options.clock = { now.withLock { $0 } }
        if let timeZone { options.wsuvTimeZone = timeZone }
        options.rowLimit = rowLimit
        if let memoryBudget {
            options.storedText = StoredText(budget: MemoryBudget(limit: memoryBudget, limitPerAddress: memoryBudget / 2))
        }
        let apis = try APICatalog.load(["wsuv"], seed: TestServer.shippedSeed, options: options)
        api = apis[0]
        server = try TestServer(responder: MockApp(apis: apis))
    }

    // MARK: Client helpers

    /// A form body as Alamofire's URLEncoding writes it: everything but `A-Za-z0-9-._~/?` escaped.
    private func form(_ pairs: KeyValuePairs<String, String>) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~/?")
        return pairs.map { "\($0.key.addingPercentEncoding(withAllowedCharacters: allowed)!)="
            + $0.value.addingPercentEncoding(withAllowedCharacters: allowed)! }.joined(separator: "&")
    }

    private func post(_ path: String, _ body: String, type: String? = WSUVTwitterTests.formType) throws -> ClientResponse {
        try server.request("POST", path, headers: type.map { [("Content-Type", $0)] } ?? [], body: body)
    }

    private func post(_ path: String, _ pairs: KeyValuePairs<String, String>) throws -> ClientResponse {
        try post(path, form(pairs))
    }

    private func get(_ target: String) throws -> ClientResponse {
        try server.request("GET", target)
    }

    private func login(_ username: String, _ password: String, prefix: String = "/~cs458/cgi-bin",
                       file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let response = try post("\(prefix)/login.cgi", ["username": username, "password": password])
        XCTAssertEqual(response.status, 200, file: file, line: line)
        return try XCTUnwrap(Self.token(response), file: file, line: line)
    }

    /// A form POST on its own connection, for requests sent from several threads at once; 0 on failure.
    private static func postStatus(port: Int, _ path: String, _ body: String) -> Int {
        guard let client = try? BlockingClient(port: port) else { return 0 }
        client.send("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(formType)\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return (try? client.readResponse().status) ?? 0
    }

    private static func token(_ response: ClientResponse) -> String? {
        guard let object = try? JSONParser.parse(response.body).objectValue else { return nil }
        return object["session_token"]?.stringValue
    }

    private static func tweetIDs(_ response: ClientResponse) throws -> [Int] {
        let tweets = try XCTUnwrap(JSONParser.parse(response.body).objectValue?["tweets"]?.arrayValue)
        return tweets.compactMap { $0.objectValue?["tweet_id"]?.intValue }
    }

    private func assertJSON(_ response: ClientResponse, _ expected: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, 200, file: file, line: line)
        XCTAssertEqual(response.reason, "OK", file: file, line: line)
        XCTAssertEqual(response.text, expected, file: file, line: line)
        XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8", file: file, line: line)
        XCTAssertEqual(response.headers["Content-Length"], String(response.body.count), file: file, line: line)
        XCTAssertEqual(response.headers["Access-Control-Allow-Origin"], "*", file: file, line: line)
    }

    /// The scripts' error: status, their reason phrase, JSON type and nothing else.
    private func assertError(_ response: ClientResponse, _ status: Int, _ reason: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, status, file: file, line: line)
        XCTAssertEqual(response.reason, reason, file: file, line: line)
        XCTAssertEqual(response.body, [], file: file, line: line)
        XCTAssertEqual(response.headers["Content-Length"], "0", file: file, line: line)
        XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8", file: file, line: line)
        XCTAssertEqual(response.headers["Access-Control-Allow-Origin"], "*", file: file, line: line)
    }

    private func assertBadRequest(_ response: ClientResponse, file: StaticString = #filePath, line: UInt = #line) {
        assertError(response, 400, "Bad Request", file: file, line: line)
    }

    private func assertUnauthorized(_ response: ClientResponse, file: StaticString = #filePath, line: UInt = #line) {
        assertError(response, 401, "Unauthorized", file: file, line: line)
    }

    private func assertNotFound(_ response: ClientResponse, file: StaticString = #filePath, line: UInt = #line) {
        assertError(response, 404, "Not Found", file: file, line: line)
    }

    // MARK: Paths

    func testEveryScriptUnderEveryPrefixSharesOneStore() throws {
        for (number, prefix) in Self.prefixes.enumerated() {
            let fetched = try get("\(prefix)/get-tweets.cgi")
            XCTAssertEqual(fetched.status, 200, prefix)
            XCTAssertEqual(try Self.tweetIDs(fetched), Array(1...(22 + number)), prefix)

            let name = "student \(number)"
            let registered = try post("\(prefix)/register.cgi", ["username": name, "password": "pw"])
            let token = try XCTUnwrap(Self.token(registered), prefix)
            XCTAssertEqual(token.count, 40, prefix)
            XCTAssertTrue(token.allSatisfy { "0123456789abcdef".contains($0) }, prefix)
            XCTAssertEqual(try login(name, "pw", prefix: prefix), token, prefix)

            assertJSON(try post("\(prefix)/add-tweet.cgi", ["username": name, "session_token": token, "tweet": "hi \(number)"]),
                       "{\"tweet\":\"hi \(number)\"}")
            // The earlier prefixes' tweets were deleted in the same second, this one's is new.
            let objects = (0...number).map { earlier in
                let deleted = earlier < number
                return "{\"tweet_id\":\(23 + earlier),\"username\":\"student \(earlier)\",\"time_stamp\":\"2016-04-22 10:00:00\","
                    + "\"tweet\":\"\(deleted ? "[deleted]" : "hi \(earlier)")\",\"isdeleted\":\(deleted ? 1 : 0)}"
            }
            assertJSON(try get("\(prefix)/get-tweets.cgi?date=2016-04-22%2009%3A59%3A59"),
                       "{\"tweets\":[" + objects.joined(separator: ",") + "]}")
            assertJSON(try post("\(prefix)/del-tweet.cgi", ["username": name, "session_token": token, "tweet_id": "\(23 + number)"]),
                       "{\"tweet_id\":\"\(23 + number)\",\"isdeleted\":1,\"tweet\":\"[deleted]\"}")
            assertJSON(try post("\(prefix)/login.cgi", ["username": name, "password": "pw", "action": "logout"]),
                       "{\"session_token\":\"0\"}")
            assertUnauthorized(try post("\(prefix)/add-tweet.cgi", ["username": name, "session_token": token, "tweet": "x"]))
        }
    }

    func testPathsArePercentDecodedAndCaseSensitive() throws {
        assertJSON(try post("/%7Ecs458/cgi-bin/login.cgi", ["username": "bob", "password": "builder42"]),
                   "{\"session_token\":\"\(try login("bob", "builder42"))\"}")
        XCTAssertEqual(try get("/%7ewcochran/cgi-bin/get%2Dtweets.cgi").status, 200)
        for (path, hint) in [("/cgi-bin/Login.cgi", "/cgi-bin/login.cgi"), ("/CGI-BIN/login.cgi", "/cgi-bin/login.cgi"),
                             ("/~cs458/login.cgi", "/login.cgi"), ("/~other/cgi-bin/login.cgi", "/cgi-bin/login.cgi"),
                             ("/cgi-bin/login", nil), ("/%ZZ/login.cgi", "/login.cgi"),
                             ("/cgi-bin/login.cgi/..", "/cgi-bin/login.cgi"), ("/cgi-bin/nothing.cgi/login.cgi", "/cgi-bin/login.cgi")] as [(String, String?)] {
            let response = try get(path)
            XCTAssertEqual(response.status, 404, path)
            let hinted = hint.map { ",\"hint\":\"GET \($0)\"" } ?? ""
            XCTAssertEqual(response.text, "{\"error\":\"not_found\",\"path\":\"\(path)\"\(hinted)}", path)
        }
    }

    /// A base URL ending in `/` and paths starting with `/` worked on the real server.
    func testPathsResolveAsApacheResolvedThem() throws {
        let token = try login("alice", "wonderland")
        let answer = #"{"session_token":"\#(token)"}"#
        for path in ["/~wcochran/cgi-bin//login.cgi", "//~cs458//cgi-bin///login.cgi", "/~cs458/cgi-bin/./login.cgi",
                     "/cgi-bin/x/../login.cgi", "/a/b/../../cgi-bin/login.cgi", "/~cs458/cgi-bin/%2E/login.cgi",
                     "/cgi-bin/%2e%2e/login.cgi", "/~cs458/cgi-bin/login.cgi/", "/~cs458/cgi-bin/login.cgi/extra",
                     "/login.cgi/extra/path/..", "/login.cgi/.", "/login.cgi/../login.cgi/x"] {
            assertJSON(try post(path, ["username": "alice", "password": "wonderland"]), answer)
        }
        // The script runs with PATH_INFO: its reason names it, not the last segment.
        assertBadRequest(try post("/cgi-bin/add-tweet.cgi/register.cgi", ["username": "alice", "tweet": "hi"]))
        let journal = try server.request("GET", "/_mock/requests?limit=1")
        XCTAssertTrue(journal.text.contains("required field `session_token` missing"), journal.text)
        let preflight = try server.request("OPTIONS", "/cgi-bin//del-tweet.cgi/x")
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.headers["Access-Control-Allow-Methods"], "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")

        // A `..` above the root: Apache's 400 before any script ran, nobody registered.
        for path in ["/../register.cgi", "/cgi-bin/../../register.cgi", "/%2E%2E/cgi-bin/register.cgi", "/x/../../register.cgi/y"] {
            assertBadRequest(try post(path, ["username": "climber", "password": "pw"]))
        }
        assertNotFound(try post("/login.cgi", ["username": "climber", "password": "pw"]))
        XCTAssertEqual(try get("/../nothing.cgi").text, #"{"error":"not_found","path":"/../nothing.cgi"}"#)
    }

    /// Apache's spellings are WSUV's only where no other API serves the path as written.
    func testOtherAPIsKeepTheirPaths() throws {
        let all = try TestServer()
        XCTAssertEqual(try all.request("POST", "/api//login", headers: [("Content-Type", Self.formType)], body: "").status, 404)
        XCTAssertEqual(try all.request("GET", "/api/./threads").status, 404)
        let token = try XCTUnwrap(Self.token(all.request("POST", "/api/threads/../../cgi-bin/login.cgi",
                                                         headers: [("Content-Type", Self.formType)],
                                                         body: "username=bob&password=builder42")))
        XCTAssertEqual(token.count, 40)
    }

    // MARK: get-tweets.cgi

    func testFreshFetchAscendingIdWithExactObjectsAndEscapes() throws {
        let response = try get("/~cs458/cgi-bin/get-tweets.cgi")
        XCTAssertEqual(try Self.tweetIDs(response), Array(1...22))
        let text = response.text
        XCTAssertTrue(text.hasPrefix("{\"tweets\":[{\"tweet_id\":1,\"username\":\"wcochran\",\"time_stamp\":\"2016-03-28 09:00:00\","
            + "\"tweet\":\"Welcome to the CS 458 Twitter Service\",\"isdeleted\":0},{\"tweet_id\":2,"))
        XCTAssertTrue(text.hasSuffix("\"isdeleted\":0}]}"), "no trailing newline")
        for fragment in ["{\"tweet_id\":7,\"username\":\"bob\",\"time_stamp\":\"2016-04-12 14:03:11\",\"tweet\":\"[deleted]\",\"isdeleted\":1}",
                         "\"tweet\":\"Two lines:\\nthe second line of one tweet\"",
                         "\"tweet\":\"Coffee at the café before lab ☕\"",
                         "\"tweet\":\"Reading the \\\"Swift 2.2 / Swift 3\\\" notes & tips\"",
                         "\"username\":\"night owl\""] {
            XCTAssertTrue(text.contains(fragment), fragment)
        }
        XCTAssertFalse(text.contains("\\u"), "non-ASCII stays raw UTF-8")
        XCTAssertFalse(text.contains(" \n"))
    }

    func testDateFilterIsAStrictByteWiseComparisonInEveryEncoding() throws {
        let newest = "{\"tweets\":[{\"tweet_id\":22,\"username\":\"bob\",\"time_stamp\":\"2016-04-21 17:05:43\","
            + "\"tweet\":\"Last tweet of the semester from me. Goodnight, WSUV!\",\"isdeleted\":0}]}"
        // Alamofire's %3A, the document's literal colon, and + for the space: all one stamp.
        for date in ["2016-04-21%2017%3A05%3A42", "2016-04-21%2017:05:42", "2016-04-21+17:05:42", "2016-04-21%2017%3a05%3a42"] {
            assertJSON(try get("/~cs458/cgi-bin/get-tweets.cgi?date=\(date)"), newest)
        }
        // Strict: the newest stamp itself returns nothing (docs/apis/wsuv-twitter.md#endpoints).
        assertJSON(try get("/~cs458/cgi-bin/get-tweets.cgi?date=2016-04-21%2017%3A05%3A43"), "{\"tweets\":[]}")
        // Not sorted by stamp: the deleted 7 and 16 were stamped later than 17.
        XCTAssertEqual(try Self.tweetIDs(get("/cgi-bin/get-tweets.cgi?date=2016-04-11%2010:10:09")), [7, 16, 17, 18, 19, 20, 21, 22])
        XCTAssertEqual(try Self.tweetIDs(get("/cgi-bin/get-tweets.cgi?date=2016-04-11")), [7, 16, 17, 18, 19, 20, 21, 22])
        XCTAssertEqual(try Self.tweetIDs(get("/cgi-bin/get-tweets.cgi?date=2016-04-11T00:00:00")), [7, 16, 18, 19, 20, 21, 22])
        assertJSON(try get("/cgi-bin/get-tweets.cgi?date=abc"), "{\"tweets\":[]}")
        // A quote is an ordinary character, not an injection that returns everything.
        assertJSON(try get("/cgi-bin/get-tweets.cgi?date=2016-04-21%2017:05:43'%20OR%20'1'='1"), "{\"tweets\":[]}")
        XCTAssertEqual(try Self.tweetIDs(get("/cgi-bin/get-tweets.cgi?date=0001-12-30%2016:07:02")), Array(1...22))
        XCTAssertEqual(try Self.tweetIDs(get("/cgi-bin/get-tweets.cgi?date=")), Array(1...22))
        XCTAssertEqual(try Self.tweetIDs(get("/cgi-bin/get-tweets.cgi?date")), Array(1...22))
        // POST reads the date from the body, as AFNetworking clients sent it.
        XCTAssertEqual(try Self.tweetIDs(post("/get-tweets.cgi", ["date": "2016-04-20 12:12:11"])), [21, 22])
    }

    func testNumberLikeDatesReturnEveryTweetAndANulIsA500() throws {
        // SQLite reads these as numbers, and a number sorts below every text stamp. The trailing
        // blanks would sort the text after every stamp, so these show the number rule, not bytes.
        for date in ["2017", "9999", "3000.5", "20300101", "5E-3", "12345678901234567890123", "9999%20", "9999%0C",
                     "%09+7.", "-1", ".5", "9e%2B2"] {
            XCTAssertEqual(try Self.tweetIDs(get("/cgi-bin/get-tweets.cgi?date=\(date)")), Array(1...22), date)
        }
        // Not numbers: compared as text, each sorts after every stamp.
        for date in ["9e", "9e%2B", "9.9.9", "3000.5x", "9%20%209"] {
            assertJSON(try get("/cgi-bin/get-tweets.cgi?date=\(date)"), "{\"tweets\":[]}")
        }
        for date in ["%00", "2016%00", "2017%00"] {
            assertError(try get("/cgi-bin/get-tweets.cgi?date=\(date)"), 500, "Internal Server Error")
            assertError(try post("/get-tweets.cgi", "date=\(date)"), 500, "Internal Server Error")
        }
    }

    func testDeletedTweetComesBackInTheNextDateFilteredFetch() throws {
        let token = try login("alice", "wonderland")
        // The client holds everything up to the newest stamp.
        assertJSON(try get("/~cs458/cgi-bin/get-tweets.cgi?date=2016-04-21%2017%3A05%3A43"), "{\"tweets\":[]}")
        assertJSON(try post("/~cs458/cgi-bin/del-tweet.cgi", ["username": "alice", "session_token": token, "tweet_id": "21"]),
                   "{\"tweet_id\":\"21\",\"isdeleted\":1,\"tweet\":\"[deleted]\"}")
        assertJSON(try get("/~cs458/cgi-bin/get-tweets.cgi?date=2016-04-21%2017%3A05%3A43"),
                   "{\"tweets\":[{\"tweet_id\":21,\"username\":\"alice\",\"time_stamp\":\"2016-04-22 10:00:00\","
                       + "\"tweet\":\"[deleted]\",\"isdeleted\":1}]}")
        // Deleting again succeeds and bumps the stamp again.
        now.withLock { $0 += 65 }
        assertJSON(try post("/~cs458/cgi-bin/del-tweet.cgi", ["username": "alice", "session_token": token, "tweet_id": "21"]),
                   "{\"tweet_id\":\"21\",\"isdeleted\":1,\"tweet\":\"[deleted]\"}")
        assertJSON(try get("/~cs458/cgi-bin/get-tweets.cgi?date=2016-04-22%2010%3A00%3A00"),
                   "{\"tweets\":[{\"tweet_id\":21,\"username\":\"alice\",\"time_stamp\":\"2016-04-22 10:01:05\","
                       + "\"tweet\":\"[deleted]\",\"isdeleted\":1}]}")
        // The id is echoed as sent: leading zeros, a JSON string.
        assertJSON(try post("/~cs458/cgi-bin/del-tweet.cgi", ["username": "alice", "session_token": token, "tweet_id": "008"]),
                   "{\"tweet_id\":\"008\",\"isdeleted\":1,\"tweet\":\"[deleted]\"}")
        XCTAssertEqual(try Self.tweetIDs(get("/cgi-bin/get-tweets.cgi?date=2016-04-22%2010%3A00%3A00")), [8, 21])
    }

    // MARK: register.cgi

    func testRegisterChecksAndLogsIn() throws {
        let path = "/~cs458/cgi-bin/register.cgi"
        assertBadRequest(try post(path, ["username": "dave"]))
        assertBadRequest(try post(path, ["password": "pw"]))
        assertBadRequest(try post(path, ["username": "dave", "password": ""]))
        // 400 comes before 409.
        assertBadRequest(try post(path, ["username": "alice", "password": ""]))
        assertError(try post(path, ["username": "alice", "password": "x"]), 409, "Conflict User Exists")
        assertError(try post(path, "username=night+owl&password=x"), 409, "Conflict User Exists")
        assertError(try post(path, "username=night%20owl&password=x"), 409, "Conflict User Exists")
        // Names are exact: another letter case is another user; spaces and symbols are kept.
        let token = try XCTUnwrap(Self.token(post(path, ["username": "Alice", "password": " "])))
        XCTAssertEqual(try login("Alice", " "), token)
        assertJSON(try post("/~cs458/cgi-bin/add-tweet.cgi", ["username": "Alice", "session_token": token, "tweet": "mine"]),
                   "{\"tweet\":\"mine\"}")
        XCTAssertNotEqual(try XCTUnwrap(Self.token(post(path, ["username": "0", "password": "0"]))), token)
    }

    func testNamesAndPasswordsCompareByteForByte() throws {
        // "José" composed (é = C3 A9), decomposed (e + U+0301 = 65 CC 81), and "K" with the Kelvin
        // sign (E2 84 AA): canonically equivalent to the first or to "K", but other bytes.
        let composed = "username=Jos%C3%A9&password=caf%C3%A9"
        let decomposed = "username=Jose%CC%81&password=cafe%CC%81"
        let first = try XCTUnwrap(Self.token(post("/register.cgi", composed)))
        let second = try XCTUnwrap(Self.token(post("/register.cgi", decomposed)))
        XCTAssertNotEqual(first, second)
        assertError(try post("/register.cgi", composed), 409, "Conflict User Exists")
        assertJSON(try post("/login.cgi", composed), "{\"session_token\":\"\(first)\"}")
        assertJSON(try post("/login.cgi", decomposed), "{\"session_token\":\"\(second)\"}")
        assertUnauthorized(try post("/login.cgi", "username=Jos%C3%A9&password=cafe%CC%81"))
        assertUnauthorized(try post("/add-tweet.cgi", "username=Jose%CC%81&session_token=\(first)&tweet=x"))
        assertJSON(try post("/add-tweet.cgi", "username=Jose%CC%81&session_token=\(second)&tweet=x"), "{\"tweet\":\"x\"}")
        assertNotFound(try post("/login.cgi", "username=%E2%84%AAelvin&password=p"))
        XCTAssertEqual(try post("/register.cgi", "username=%E2%84%AAelvin&password=p").status, 200)
        assertNotFound(try post("/login.cgi", "username=Kelvin&password=p"))

        // A state with both forms of one name loads, and each logs in with its own password.
        let state = #"{"users":[{"username":"Jos\u00e9","password":"a","session_token":"0"},"#
            + #"{"username":"Jose\u0301","password":"b","session_token":"0"}],"tweets":[]}"#
        XCTAssertEqual(try server.request("PUT", "/_mock/state/wsuv", headers: [("Content-Type", "application/json")],
                                          body: state).status, 200)
        XCTAssertEqual(try post("/login.cgi", "username=Jos%C3%A9&password=a").status, 200)
        XCTAssertEqual(try post("/login.cgi", "username=Jose%CC%81&password=b").status, 200)
        assertUnauthorized(try post("/login.cgi", "username=Jose%CC%81&password=a"))
    }

    func testConcurrentRegistersOfOneNameHaveOneWinner() throws {
        let statuses = Locked([Int]())
        let port = server.port
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let status = Self.postStatus(port: port, "/register.cgi", "username=rush&password=pw")
            statuses.withLock { $0.append(status) }
        }
        XCTAssertEqual(statuses.withLock { $0.sorted() }, [200] + Array(repeating: 409, count: 7))
    }

    // MARK: login.cgi

    func testLoginKeepsTheTokenUntilALogoutThatNeedsThePassword() throws {
        let path = "/~wcochran/cgi-bin/login.cgi"
        let token = try login("wcochran", "password")
        XCTAssertEqual(try login("wcochran", "password"), token, "login does not rotate")
        assertJSON(try post(path, ["action": "login", "password": "password", "username": "wcochran"]),
                   "{\"session_token\":\"\(token)\"}")
        assertJSON(try post(path, "username=wcochran&password=password&action="), "{\"session_token\":\"\(token)\"}")

        // A failed logout changes nothing.
        assertUnauthorized(try post(path, ["username": "wcochran", "password": "wrong", "action": "logout"]))
        assertBadRequest(try post(path, ["username": "wcochran", "session_token": token, "action": "logout"]))
        assertNotFound(try post(path, ["username": "nobody", "password": "password", "action": "logout"]))
        let tweet = ["username": "wcochran", "session_token": token, "tweet": "still in"] as KeyValuePairs
        assertJSON(try post("/~wcochran/cgi-bin/add-tweet.cgi", tweet), "{\"tweet\":\"still in\"}")

        assertJSON(try post(path, ["username": "wcochran", "password": "password", "action": "logout"]),
                   "{\"session_token\":\"0\"}")
        assertJSON(try post(path, ["username": "wcochran", "password": "password", "action": "logout"]),
                   "{\"session_token\":\"0\"}")
        assertUnauthorized(try post("/~wcochran/cgi-bin/add-tweet.cgi", tweet))
        let fresh = try login("wcochran", "password")
        XCTAssertNotEqual(fresh, token)
        assertUnauthorized(try post("/~wcochran/cgi-bin/add-tweet.cgi", tweet))
    }

    func testLoginCheckOrder() throws {
        let path = "/login.cgi"
        assertBadRequest(try post(path, ["username": "alice"]))
        assertBadRequest(try post(path, ["password": "wonderland"]))
        // A bad action is 400 before the user is looked up.
        assertBadRequest(try post(path, ["username": "nobody", "password": "x", "action": "LOGIN"]))
        assertBadRequest(try post(path, ["username": "alice", "password": "wonderland", "action": "logout "]))
        assertNotFound(try post(path, ["username": "nobody", "password": "x"]))
        assertNotFound(try post(path, ["username": "ALICE", "password": "wonderland"]))
        assertUnauthorized(try post(path, ["username": "alice", "password": "Wonderland"]))
        assertUnauthorized(try post(path, ["username": "alice", "password": "wonderland "]))
        // The exchange of docs/apis/wsuv-twitter.md#endpoints, byte for byte apart from the random token.
        let response = try post("/~cs458/cgi-bin/login.cgi", "password=wonderland&username=alice")
        XCTAssertEqual(response.headers["Content-Length"], "60")
        XCTAssertNotNil(response.text.range(of: "^\\{\"session_token\":\"[0-9a-f]{40}\"\\}$", options: .regularExpression))
        // `+` and `%20` both mean a space.
        let owl = try login("night owl", "hoot hoot")
        XCTAssertEqual(Self.token(try post(path, "username=night+owl&password=hoot%20hoot")), owl)
    }

    // MARK: add-tweet.cgi

    func testAddTweetCheckOrderAndStoredTweet() throws {
        let path = "/cgi-bin/add-tweet.cgi"
        let token = try login("carol", "carol2016")
        let bobToken = try login("bob", "builder42")
        assertBadRequest(try post(path, ["username": "carol", "session_token": token]))
        assertBadRequest(try post(path, ["username": "carol", "session_token": token, "tweet": ""]))
        assertBadRequest(try post(path, ["username": "carol", "tweet": "x"]))
        assertBadRequest(try post(path, ["session_token": token, "tweet": "x"]))
        // An unknown user is 404 whatever the token.
        assertNotFound(try post(path, ["username": "nobody", "session_token": "bad", "tweet": "x"]))
        assertNotFound(try post(path, ["username": "nobody", "session_token": token, "tweet": "x"]))
        assertUnauthorized(try post(path, ["username": "carol", "session_token": bobToken, "tweet": "x"]))
        assertUnauthorized(try post(path, ["username": "carol", "session_token": token.uppercased(), "tweet": "x"]))
        // No "0" token, not even for a logged-out user (the real server's hole).
        assertUnauthorized(try post(path, ["username": "alice", "session_token": "0", "tweet": "x"]))

        assertJSON(try post(path, "username=carol&session_token=\(token)&tweet=Lab+is+at+3%3A00"), "{\"tweet\":\"Lab is at 3:00\"}")
        assertJSON(try post(path, ["username": "carol", "session_token": token, "tweet": "  "]), "{\"tweet\":\"  \"}")
        let long = String(repeating: "é/\"\\\t", count: 60)
        assertJSON(try post(path, ["username": "carol", "session_token": token, "tweet": long]),
                   "{\"tweet\":\"\(String(repeating: "é/\\\"\\\\\\t", count: 60))\"}")
        XCTAssertEqual(try Self.tweetIDs(get("/cgi-bin/get-tweets.cgi?date=2016-04-22")), [23, 24, 25])
        // A repeated `date` keeps its first value.
        XCTAssertEqual(try Self.tweetIDs(get("/cgi-bin/get-tweets.cgi?date=2016-04-22&date=x")), [23, 24, 25])
        XCTAssertTrue(try get("/get-tweets.cgi").text.hasSuffix(
            "{\"tweet_id\":23,\"username\":\"carol\",\"time_stamp\":\"2016-04-22 10:00:00\",\"tweet\":\"Lab is at 3:00\",\"isdeleted\":0},"
                + "{\"tweet_id\":24,\"username\":\"carol\",\"time_stamp\":\"2016-04-22 10:00:00\",\"tweet\":\"  \",\"isdeleted\":0},"
                + "{\"tweet_id\":25,\"username\":\"carol\",\"time_stamp\":\"2016-04-22 10:00:00\",\"tweet\":\"\(String(repeating: "é/\\\"\\\\\\t", count: 60))\",\"isdeleted\":0}]}"))
    }

    func testConcurrentAddsGetConsecutiveIds() throws {
        let token = try login("bob", "builder42")
        let port = server.port
        DispatchQueue.concurrentPerform(iterations: 10) { index in
            XCTAssertEqual(Self.postStatus(port: port, "/add-tweet.cgi", "username=bob&session_token=\(token)&tweet=n\(index)"), 200)
        }
        XCTAssertEqual(try Self.tweetIDs(get("/get-tweets.cgi?date=2016-04-22")), Array(23...32))
    }

    // MARK: del-tweet.cgi

    func testDeleteCheckOrder() throws {
        let path = "/~cs458/cgi-bin/del-tweet.cgi"
        let alice = try login("alice", "wonderland")
        let bob = try login("bob", "builder42")
        assertBadRequest(try post(path, ["username": "alice", "session_token": alice]))
        assertBadRequest(try post(path, ["username": "alice", "session_token": alice, "tweet_id": ""]))
        assertBadRequest(try post(path, ["session_token": alice, "tweet_id": "3"]))
        assertBadRequest(try post(path, ["username": "alice", "tweet_id": "3"]))
        // Authorization before the tweet: unknown user 404 with any token, bad token 401 for any tweet.
        assertNotFound(try post(path, ["username": "nobody", "session_token": "bad", "tweet_id": "3"]))
        assertUnauthorized(try post(path, ["username": "alice", "session_token": "bad", "tweet_id": "99999"]))
        assertUnauthorized(try post(path, ["username": "alice", "session_token": bob, "tweet_id": "3"]))
        assertUnauthorized(try post(path, ["username": "carol", "session_token": "0", "tweet_id": "5"]))
        for id in ["abc", "-3", "5.5", "0x5", "5e", "5 5", "0", "-0", "99999", "99999999999999999999999", "1e400", "٣"] {
            assertNotFound(try post(path, ["username": "alice", "session_token": alice, "tweet_id": id]))
        }
        assertError(try post(path, ["username": "alice", "session_token": alice, "tweet_id": "4"]), 403, "Forbidden")
        assertError(try post(path, ["username": "alice", "session_token": alice, "tweet_id": "7"]), 403, "Forbidden")
        // Nothing changed on the way.
        XCTAssertEqual(try Self.tweetIDs(get("/get-tweets.cgi?date=2016-04-21%2017%3A05%3A43")), [])
        assertJSON(try post(path, ["username": "alice", "session_token": alice, "tweet_id": "16"]),
                   "{\"tweet_id\":\"16\",\"isdeleted\":1,\"tweet\":\"[deleted]\"}")
    }

    func testTweetIDIsComparedAsANumberAndEchoedAsSent() throws {
        let alice = try login("alice", "wonderland")
        // Alice's tweets are 3, 8, 12, 16 and 21.
        for (sent, escaped) in [("3.0", "3.0"), (" 8", "%208"), ("12 ", "12%20"), ("+16", "%2B16"), ("21e0", "21e0"),
                                ("\t.3e1\n", "%09.3e1%0A"), ("0008.", "0008.")] {
            let response = try post("/del-tweet.cgi", "username=alice&session_token=\(alice)&tweet_id=\(escaped)")
            assertJSON(response, #"{"tweet_id":"\#(sent.replacingOccurrences(of: "\t", with: "\\t").replacingOccurrences(of: "\n", with: "\\n"))","isdeleted":1,"tweet":"[deleted]"}"#)
        }
        XCTAssertEqual(try Self.tweetIDs(get("/get-tweets.cgi?date=2016-04-22")), [3, 8, 12, 16, 21])
        assertError(try post("/del-tweet.cgi", "username=alice&session_token=\(alice)&tweet_id=5.0"), 403, "Forbidden")
    }

    // MARK: Methods and parameter sources

    func testQueryMethodsWorkForEveryScript() throws {
        // A 2014 client used GET for register, logout and delete.
        let token = try XCTUnwrap(Self.token(get("/~cs458/cgi-bin/register.cgi?username=getter&password=p%20w")))
        XCTAssertEqual(try XCTUnwrap(Self.token(get("/~cs458/cgi-bin/login.cgi?username=getter&password=p+w"))), token)
        assertJSON(try get("/~cs458/cgi-bin/add-tweet.cgi?username=getter&session_token=\(token)&tweet=via%20GET"),
                   "{\"tweet\":\"via GET\"}")
        assertJSON(try server.request("DELETE", "/~cs458/cgi-bin/del-tweet.cgi?username=getter&session_token=\(token)&tweet_id=23"),
                   "{\"tweet_id\":\"23\",\"isdeleted\":1,\"tweet\":\"[deleted]\"}")
        assertJSON(try get("/~cs458/cgi-bin/login.cgi?username=getter&password=p%20w&action=logout"), "{\"session_token\":\"0\"}")
        // A method CGI.pm did not know still runs the script, with no parameters.
        assertBadRequest(try server.request("BREW", "/login.cgi?username=getter&password=p%20w"))
    }

    func testBodyMethodsIgnoreTheQueryAndQueryMethodsIgnoreTheBody() throws {
        assertBadRequest(try post("/cgi-bin/login.cgi?username=alice&password=wonderland", ""))
        assertUnauthorized(try post("/cgi-bin/login.cgi?password=wonderland", "username=alice&password=wrong"))
        XCTAssertEqual(try post("/cgi-bin/login.cgi?password=wrong", "username=alice&password=wonderland").status, 200)
        let put = try server.request("PUT", "/cgi-bin/login.cgi?password=x", headers: [("Content-Type", Self.formType)],
                                     body: "username=alice&password=wonderland")
        XCTAssertEqual(put.status, 200)
        let patch = try server.request("PATCH", "/cgi-bin/login.cgi", headers: [], body: "username=alice&password=nope")
        assertUnauthorized(patch)
        let getWithBody = try server.request("GET", "/cgi-bin/login.cgi?username=alice", headers: [("Content-Type", Self.formType)],
                                             body: "password=wonderland")
        assertBadRequest(getWithBody)
        XCTAssertEqual(try Self.tweetIDs(server.request("GET", "/get-tweets.cgi", headers: [("Content-Type", Self.formType)],
                                                        body: "date=2099")), Array(1...22))
    }

    func testHeadRunsTheScriptWithoutABodyAndOptionsIsThePreflight() throws {
        let head = try server.request("HEAD", "/register.cgi?username=header&password=pw")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["Content-Length"], "60")
        XCTAssertEqual(head.headers["Content-Type"], "application/json; charset=utf-8")
        XCTAssertEqual(head.body, [])
        assertError(try get("/register.cgi?username=header&password=pw"), 409, "Conflict User Exists")
        for prefix in Self.prefixes {
            let preflight = try server.request("OPTIONS", "\(prefix)/del-tweet.cgi")
            XCTAssertEqual(preflight.status, 204, prefix)
            XCTAssertEqual(preflight.headers["Access-Control-Allow-Methods"], "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
            XCTAssertEqual(preflight.headers["Access-Control-Allow-Origin"], "*")
            XCTAssertEqual(preflight.headers["Access-Control-Max-Age"], "600")
            XCTAssertNil(preflight.headers["Allow"])
        }
        // OPTIONS never reaches a script: no user was made.
        XCTAssertEqual(try server.request("OPTIONS", "/register.cgi?username=opt&password=pw").status, 204)
        assertNotFound(try get("/login.cgi?username=opt&password=pw"))
    }

    // MARK: Body types and form parsing

    func testBodyTypes() throws {
        let json = "{\"username\":\"alice\",\"password\":\"wonderland\"}"
        assertBadRequest(try post("/login.cgi", json, type: "application/json"))
        assertBadRequest(try post("/login.cgi", json, type: "application/json; charset=utf-8"))
        assertBadRequest(try post("/login.cgi", "username=alice&password=wonderland", type: "text/plain"))
        XCTAssertEqual(try Self.tweetIDs(post("/get-tweets.cgi", "{\"date\":\"2016-04-21\"}", type: "application/json")), Array(1...22))
        // No type at all is a form.
        XCTAssertEqual(try post("/login.cgi", "username=alice&password=wonderland", type: nil).status, 200)

        let boundary = "Boundary-7MA4YWxkTrZu0gW"
        let multipart = [
            "--\(boundary)", "Content-Disposition: form-data; name=\"username\"", "", "night owl",
            "--\(boundary)", "Content-Disposition: form-data; name=\"password\"", "", "hoot hoot",
            "--\(boundary)", "Content-Disposition: form-data; name=\"password\"; filename=\"p.txt\"", "", "ignored",
            "--\(boundary)--", "",
        ].joined(separator: "\r\n")
        let response = try post("/login.cgi", multipart, type: "multipart/form-data; boundary=\(boundary)")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(Self.token(response), try login("night owl", "hoot hoot"))
        // A part without its blank line ends the reading (CGI.pm's malformed-multipart 400).
        assertBadRequest(try post("/login.cgi", "--x\r\nbroken", type: "multipart/form-data; boundary=x"))
    }

    func testFormParsingFirstValueLiteralPercentAndReplacementCharacter() throws {
        // The first of repeated names wins, even an empty one.
        XCTAssertEqual(try post("/login.cgi", "username=alice&password=wonderland&password=wrong").status, 200)
        assertBadRequest(try post("/login.cgi", "username=&username=alice&password=wonderland"))
        XCTAssertEqual(try post("/login.cgi", "username=alice;password=wonderland").status, 200)
        XCTAssertEqual(try post("/login.cgi", "us%65rname=alice&password&password=wonderland").status, 400)
        // A broken escape stays literal; invalid UTF-8 becomes U+FFFD.
        let odd = try XCTUnwrap(Self.token(post("/register.cgi", "username=100%zz%&password=%FF")))
        XCTAssertEqual(try XCTUnwrap(Self.token(post("/login.cgi", "username=100%25zz%25&password=%EF%BF%BD"))), odd)
        assertJSON(try post("/add-tweet.cgi", "username=100%25zz%25&session_token=\(odd)&tweet=caf%E9%20%C3%A9"),
                   "{\"tweet\":\"caf\u{FFFD} é\"}")
    }

    // MARK: Reading parameters as CGI.pm 4.55 did

    /// One request exactly as written, on its own connection.
    private func raw(_ request: String) throws -> ClientResponse {
        let client = try server.connect()
        client.send(request)
        return try client.readResponse()
    }

    private func multipart(_ boundary: String, _ parts: [(disposition: String, content: String)], closed: Bool = true) -> String {
        parts.map { "--\(boundary)\r\nContent-Disposition: form-data; \($0.disposition)\r\n\r\n\($0.content)\r\n" }.joined()
            + (closed ? "--\(boundary)--\r\n" : "")
    }

    func testSemicolonsSeparateParametersLikeAmpersands() throws {
        let token = try login("alice", "wonderland")
        assertJSON(try post("/login.cgi", "username=alice;password=wonderland"), #"{"session_token":"\#(token)"}"#)
        assertJSON(try get("/login.cgi?username=alice;password=wonderland"), #"{"session_token":"\#(token)"}"#)
        assertJSON(try post("/add-tweet.cgi", "username=alice&session_token=\(token)&tweet=a;b"), #"{"tweet":"a"}"#)
        XCTAssertEqual(try get("/get-tweets.cgi?date=2016-04-22").text,
                       #"{"tweets":[{"tweet_id":23,"username":"alice","time_stamp":"2016-04-22 10:00:00","tweet":"a","isdeleted":0}]}"#)
    }

    func testPercentUEscapesAndSurrogatePairsAreDecoded() throws {
        let token = try login("bob", "builder42")
        // %u escapes in either case of hex, a surrogate pair, a lone surrogate (not UTF-8: U+FFFD for each
        // of its three bytes), %U and a short %u kept literally, + as space, %2B as +.
        let tweet = "%u0041%u00e9%u2615%uD83D%uDE00|%uD83D|%U0041|%u12|a+b%2Bc|%u003B"
        assertJSON(try post("/add-tweet.cgi", "username=bob&session_token=\(token)&tweet=\(tweet)"),
                   "{\"tweet\":\"Aé☕😀|\u{FFFD}\u{FFFD}\u{FFFD}|%U0041|%u12|a b+c|;\"}")
        // Names are unescaped the same way.
        assertJSON(try post("/login.cgi", "%u0075sername=bob&password=builder42"), #"{"session_token":"\#(token)"}"#)
    }

    func testContentTypesAreMatchedCaseSensitivelyAndByPrefix() throws {
        let form = "username=alice&password=wonderland"
        assertBadRequest(try post("/login.cgi", form, type: "Application/X-WWW-Form-Urlencoded"))
        assertBadRequest(try post("/login.cgi", form, type: ""))
        let token = try login("alice", "wonderland")
        assertJSON(try post("/login.cgi", form, type: "application/x-www-form-urlencodedfoo"), #"{"session_token":"\#(token)"}"#)
        let parts = multipart("b1", [("name=\"username\"", "alice"), ("name=\"password\"", "wonderland")])
        assertBadRequest(try post("/login.cgi", parts, type: "Multipart/Form-Data; boundary=b1"))
        assertJSON(try post("/login.cgi", parts, type: "multipart/form-datafoo; boundary=b1"), #"{"session_token":"\#(token)"}"#)
        // An XForms submission: the query counts, the body does not; only the exact type is one.
        assertJSON(try post("/login.cgi?\(form)", "<xml/>", type: "application/xml"), #"{"session_token":"\#(token)"}"#)
        assertBadRequest(try post("/login.cgi?\(form)", form, type: "application/xml; charset=utf-8"))
    }

    func testPutMultipartChunkedBodiesAndUnknownMethodsReadNoParameters() throws {
        let parts = multipart("b2", [("name=\"username\"", "alice"), ("name=\"password\"", "wonderland")])
        let put = try server.request("PUT", "/login.cgi", headers: [("Content-Type", "multipart/form-data; boundary=b2")], body: parts)
        assertBadRequest(put)
        // PUT splits a multipart body like a form, so form text in it counts.
        let formInside = try server.request("PUT", "/login.cgi", headers: [("Content-Type", "multipart/form-data; boundary=b2")],
                                            body: "username=alice&password=wonderland")
        assertJSON(formInside, #"{"session_token":"\#(try login("alice", "wonderland"))"}"#)
        let body = "username=alice&password=wonderland"
        assertBadRequest(try raw("POST /login.cgi HTTP/1.1\r\nHost: x\r\nContent-Type: \(Self.formType)\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n\(String(body.utf8.count, radix: 16))\r\n\(body)\r\n0\r\n\r\n"))
        assertBadRequest(try server.request("FOO", "/login.cgi?\(body)", headers: [("Content-Type", Self.formType)], body: body))
        // CGI.pm's multipart reader had a mode for bodies without a length: a chunked multipart POST is read.
        let token = try login("alice", "wonderland")
        let response = try raw("POST /login.cgi HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b2\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n\(String(parts.utf8.count, radix: 16))\r\n\(parts)\r\n0\r\n\r\n")
        assertJSON(response, #"{"session_token":"\#(token)"}"#)
    }

    func testAMultipartFilePartHasItsFileNameAsValue() throws {
        let parts = multipart("b3", [("name=\"username\"; filename=\"alice\"", "not read"),
                                     ("name=\"password\"", "wonderland")])
        let token = try login("alice", "wonderland")
        assertJSON(try post("/login.cgi", parts, type: "multipart/form-data; boundary=b3"), #"{"session_token":"\#(token)"}"#)
        // An empty file name is no file: the content is the value.
        let empty = multipart("b3", [("name=\"username\"; filename=\"\"", "alice"), ("name=\"password\"", "wonderland")])
        assertJSON(try post("/login.cgi", empty, type: "multipart/form-data; boundary=\"b3\""), #"{"session_token":"\#(token)"}"#)
        // Opera's multipart/mixed upload is a file too, here without a name: CGI.pm named it `multipart/mixed`.
        let mixed = "--b3\r\nContent-Disposition: form-data; name=\"username\"\r\nContent-Type: multipart/mixed; boundary=z\r\n\r\n"
            + "alice\r\n--b3\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nwonderland\r\n--b3--\r\n"
        assertNotFound(try post("/login.cgi", mixed, type: "multipart/form-data; boundary=b3"))
        assertNotFound(try post("/login.cgi", mixed.replacingOccurrences(of: "alice", with: "multipart/mixed"),
                                type: "multipart/form-data; boundary=b3"))
        // Perl's `||=` made `filename=0` no file name, so the content is the value; `filename="0"`
        // stays a file whose handle has no name: an empty value.
        let zero = multipart("b3", [("name=\"username\"; filename=0", "alice"), ("name=\"password\"", "wonderland")])
        assertJSON(try post("/login.cgi", zero, type: "multipart/form-data; boundary=b3"), #"{"session_token":"\#(token)"}"#)
        let quotedZero = multipart("b3", [("name=\"username\"; filename=\"0\"", "alice"), ("name=\"password\"", "wonderland")])
        assertBadRequest(try post("/login.cgi", quotedZero, type: "multipart/form-data; boundary=b3"))
    }

    func testUnquotedPartNamesAndDefaults() throws {
        let token = try login("alice", "wonderland")
        let answer = #"{"session_token":"\#(token)"}"#
        // CGI.pm 4.55 reads `name=username` up to a separator, unless a quoted name is anywhere.
        let unquoted = multipart("b7", [("name=username", "alice"), ("name=password; x=y", "wonderland")])
        assertJSON(try post("/login.cgi", unquoted, type: "multipart/form-data; boundary=b7"), answer)
        let quotedToo = multipart("b7", [("name=username", "alice"), ("name=password; x=\" name=\"x\"", "wonderland")])
        assertBadRequest(try post("/login.cgi", quotedToo, type: "multipart/form-data; boundary=b7"))
        // `.defaults` true in Perl erased every parameter; empty and `0` are false.
        assertBadRequest(try post("/login.cgi", "username=alice&password=wonderland&.defaults=1"))
        let journal = try server.request("GET", "/_mock/requests?limit=1")
        XCTAssertTrue(journal.text.contains("CGI.pm erases every parameter when `.defaults` is sent"), journal.text)
        assertBadRequest(try get("/login.cgi?username=alice&password=wonderland&%2Edefaults=00"))
        let defaults = multipart("b7", [("name=username", "alice"), ("name=password", "wonderland"), ("name=.defaults", "yes")])
        assertBadRequest(try post("/login.cgi", defaults, type: "multipart/form-data; boundary=b7"))
        XCTAssertEqual(try Self.tweetIDs(get("/get-tweets.cgi?date=2016-04-20&.defaults=on")), Array(1...22))
        assertJSON(try post("/login.cgi", "username=alice&password=wonderland&.defaults=0"), answer)
        assertJSON(try post("/login.cgi", "username=alice&password=wonderland&.defaults="), answer)
    }

    func testMultipartPartsAreReadAsCGIPmReadThem() throws {
        let token = try login("night owl", "hoot hoot")
        let expected = #"{"session_token":"\#(token)"}"#
        // Header names in any case CGI.pm capitalized to Content-Disposition, a folded header line,
        // an unquoted file name, and a value that loses the two bytes before the boundary whatever they are.
        let body = "--b5\r\ncontent-disposition: form-data;\r\n name=\"username\"\r\n\r\nnight owl\r\n"
            + "--b5\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhoot hootXY--b5\r\n"
            + "--b5\r\nContent-Disposition: form-data; name=\"action\"; filename=login\r\n\r\nlogout\r\n--b5--\r\n"
        assertJSON(try post("/login.cgi", body, type: "multipart/form-data; boundary=b5"), expected)
        // A name CGI.pm did not capitalize to Content-Disposition is no name.
        let shouting = "--b5\r\nCONTENT-DISPOSITION: form-data; name=\"username\"\r\n\r\nnight owl\r\n"
            + "--b5\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhoot hoot\r\n--b5--\r\n"
        assertBadRequest(try post("/login.cgi", shouting, type: "multipart/form-data; boundary=b5"))
        // Bare line feeds: CGI.pm found no blank line after the first boundary, so no parameters.
        let bare = multipart("b5", [("name=\"username\"", "night owl"), ("name=\"password\"", "hoot hoot")])
            .replacingOccurrences(of: "\r\n", with: "\n")
        assertBadRequest(try post("/login.cgi", bare, type: "multipart/form-data; boundary=b5"))
    }

    func testMultipartWithoutBoundaryTakesItFromTheFirstLine() throws {
        let newbie = multipart("b4", [("name=\"username\"", "newbie"), ("name=\"password\"", "pw")])
        let registered = try post("/register.cgi", newbie, type: "multipart/form-data")
        let token = try XCTUnwrap(Self.token(registered))
        assertJSON(registered, #"{"session_token":"\#(token)"}"#)
        assertJSON(try post("/login.cgi", "username=newbie&password=pw"), #"{"session_token":"\#(token)"}"#)
        let stranger = multipart("b4", [("name=\"username\"", "stranger"), ("name=\"password\"", "pw")])
        assertNotFound(try post("/login.cgi", stranger, type: "multipart/form-data; charset=utf-8"))
        // Any first line is the delimiter, `--` or not.
        let plain = "sep\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\nnewbie\r\n"
            + "sep\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\npw\r\nsep--\r\n"
        assertJSON(try post("/login.cgi", plain, type: "multipart/form-data"), #"{"session_token":"\#(token)"}"#)
        // CGI.pm died where nothing follows the first line, where it has no CRLF, and on a body
        // without Content-Length, against which it counted the line.
        for body in ["--b4\r\n", "--b4", "username=newbie&password=pw"] {
            assertError(try post("/login.cgi", body, type: "multipart/form-data"), 500, "Internal Server Error")
        }
        let chunked = try raw("POST /login.cgi HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n\(String(newbie.utf8.count, radix: 16))\r\n\(newbie)\r\n0\r\n\r\n")
        assertError(chunked, 500, "Internal Server Error")
    }

    func testMultipartEndsWhereCGIPmEndedIt() throws {
        let parts = [("name=\"username\"", "alice"), ("name=\"password\"", "wonderland")]
        let type = "multipart/form-data; boundary=b4"
        // `Boundary=` is not `boundary=`: the first line gave the delimiter, and alice exists.
        assertError(try post("/register.cgi", multipart("b4", parts), type: "multipart/form-data; Boundary=b4"),
                    409, "Conflict User Exists")
        let unclosed = multipart("b4", [("name=\"username\"", "newbie"), ("name=\"password\"", "pw")], closed: false)
        assertError(try post("/register.cgi", unclosed, type: type), 500, "Internal Server Error")
        assertError(try post("/register.cgi", "--b4--\r\n", type: type), 500, "Internal Server Error")
        // Nothing after the first boundary (a line feed and a carriage return after it were dropped).
        assertError(try post("/register.cgi", "--b4", type: type), 500, "Internal Server Error")
        assertError(try post("/register.cgi", "--b4\n\r", type: type), 500, "Internal Server Error")
        // The script died before registering anyone.
        assertNotFound(try post("/login.cgi", "username=newbie&password=pw"))

        let token = try login("alice", "wonderland")
        let answer = #"{"session_token":"\#(token)"}"#
        // A preamble whose last chunk read as false in Perl (empty: one or two bytes; `0`) left the
        // first boundary to be read as a header line: no closing boundary is seen there.
        assertBadRequest(try post("/register.cgi", "x--b4", type: type))
        let afterFirstBoundary = multipart("b4", parts).replacingOccurrences(of: "--b4\r\n", with: "", options: .anchored)
        assertJSON(try post("/login.cgi", "0ab--b4--\r\n" + afterFirstBoundary, type: type), answer)
        // A blank line CGI.pm never saw: past 4,096 bytes plus the boundary's and 2, it died where
        // more body followed and stopped reading where the body ended.
        let longHeader = "--b4\r\nContent-Disposition: form-data; name=\"password\"; x=\"" + String(repeating: "x", count: 4100)
            + "\"\r\n\r\nwonderland\r\n"
        let first = multipart("b4", [parts[0]], closed: false)
        assertError(try post("/login.cgi", first + longHeader + "--b4--\r\n", type: type), 500, "Internal Server Error")
        assertBadRequest(try post("/login.cgi", first + "--b4\r\n" + String(repeating: "x", count: 4000), type: type))
        let shortEnough = longHeader.replacingOccurrences(of: String(repeating: "x", count: 4100), with: String(repeating: "x", count: 4000))
        assertJSON(try post("/login.cgi", first + shortEnough + "--b4--\r\n", type: type), answer)
    }

    // MARK: Time stamps

    func testStampsAreUSPacificLocalTimeWithDaylightSaving() throws {
        let token = try login("bob", "builder42")
        // Winter (PST, UTC-8), summer (PDT, UTC-7), and a fraction that is truncated.
        for (unix, stamp) in [(1_452_859_200.0, "2016-01-15 04:00:00"), (1_467_374_400.999, "2016-07-01 05:00:00")] {
            now.withLock { $0 = Date(timeIntervalSince1970: unix) }
            XCTAssertEqual(try post("/add-tweet.cgi", ["username": "bob", "session_token": token, "tweet": stamp]).status, 200)
        }
        XCTAssertTrue(try get("/get-tweets.cgi").text.hasSuffix(
            "{\"tweet_id\":23,\"username\":\"bob\",\"time_stamp\":\"2016-01-15 04:00:00\",\"tweet\":\"2016-01-15 04:00:00\",\"isdeleted\":0},"
                + "{\"tweet_id\":24,\"username\":\"bob\",\"time_stamp\":\"2016-07-01 05:00:00\",\"tweet\":\"2016-07-01 05:00:00\",\"isdeleted\":0}]}"))
        // The winter stamp sorts before the spring seed, so a date filter skips it.
        XCTAssertEqual(try Self.tweetIDs(get("/get-tweets.cgi?date=2016-04-22")), [24])
    }

    func testAnotherTimeZoneFromOptions() throws {
        try start(timeZone: XCTUnwrap(TimeZone(identifier: "Asia/Tokyo")))
        let token = try login("alice", "wonderland")
        // 2016-04-22 17:00:00 UTC is 2016-04-23 02:00:00 in Tokyo.
        assertJSON(try post("/cgi-bin/add-tweet.cgi", ["username": "alice", "session_token": token, "tweet": "from Tokyo"]),
                   "{\"tweet\":\"from Tokyo\"}")
        assertJSON(try get("/cgi-bin/get-tweets.cgi?date=2016-04-22"),
                   "{\"tweets\":[{\"tweet_id\":23,\"username\":\"alice\",\"time_stamp\":\"2016-04-23 02:00:00\","
                       + "\"tweet\":\"from Tokyo\",\"isdeleted\":0}]}")
    }

    // MARK: Reset, state and faults

    func testResetReturnsToTheSeed() throws {
        let fresh = try get("/get-tweets.cgi").text
        let token = try login("alice", "wonderland")
        XCTAssertEqual(try post("/register.cgi", ["username": "temp", "password": "pw"]).status, 200)
        XCTAssertEqual(try post("/add-tweet.cgi", ["username": "alice", "session_token": token, "tweet": "gone soon"]).status, 200)
        XCTAssertEqual(try post("/del-tweet.cgi", ["username": "alice", "session_token": token, "tweet_id": "3"]).status, 200)

        let reset = try server.request("POST", "/_mock/reset/wsuv")
        XCTAssertEqual(reset.text, "{\"reset\":[\"wsuv\"]}")
        XCTAssertEqual(try get("/get-tweets.cgi").text, fresh)
        assertUnauthorized(try post("/add-tweet.cgi", ["username": "alice", "session_token": token, "tweet": "x"]))
        assertNotFound(try post("/login.cgi", ["username": "temp", "password": "pw"]))
        let again = try login("alice", "wonderland")
        XCTAssertNotEqual(again, token)
        XCTAssertEqual(try post("/add-tweet.cgi", ["username": "alice", "session_token": again, "tweet": "first new"]).status, 200)
        XCTAssertEqual(try Self.tweetIDs(get("/get-tweets.cgi?date=2016-04-22")), [23])
    }

    func testStateExportThenLoadChangesNoAnswer() throws {
        let seeded = try get("/get-tweets.cgi").text
        let token = try login("alice", "wonderland")
        XCTAssertEqual(try post("/register.cgi", ["username": "saved", "password": "pw"]).status, 200)
        XCTAssertEqual(try post("/add-tweet.cgi", ["username": "alice", "session_token": token, "tweet": "kept"]).status, 200)
        XCTAssertEqual(try post("/del-tweet.cgi", ["username": "alice", "session_token": token, "tweet_id": "12"]).status, 200)
        let before = try get("/get-tweets.cgi").text
        let exported = api.exportState()
        XCTAssertTrue(String(decoding: exported, as: UTF8.self).hasPrefix(
            "{\"users\":[{\"username\":\"wcochran\",\"password\":\"password\",\"session_token\":\"0\"},"
                + "{\"username\":\"alice\",\"password\":\"wonderland\",\"session_token\":\"\(token)\"}"))

        api.reset()
        assertUnauthorized(try post("/add-tweet.cgi", ["username": "alice", "session_token": token, "tweet": "x"]))
        try api.loadState(SeedJSON(exported))
        XCTAssertEqual(api.exportState(), exported)
        XCTAssertEqual(try get("/get-tweets.cgi").text, before)
        XCTAssertEqual(try login("alice", "wonderland"), token)
        XCTAssertEqual(try post("/login.cgi", ["username": "saved", "password": "pw"]).status, 200)
        // Reset still goes to the seed, not to the loaded document.
        XCTAssertEqual(try post("/add-tweet.cgi", ["username": "alice", "session_token": token, "tweet": "later"]).status, 200)
        api.reset()
        XCTAssertEqual(try get("/get-tweets.cgi").text, seeded)
        XCTAssertNotEqual(try login("alice", "wonderland"), token)
    }

    func testLoadStateRejectsBadDocumentsAndChangesNothing() throws {
        let before = api.exportState()
        let user = "{\"username\":\"a\",\"password\":\"p\",\"session_token\":\"0\"}"
        let tweet = "{\"tweet_id\":1,\"username\":\"a\",\"time_stamp\":\"2016-01-01 00:00:00\",\"tweet\":\"t\",\"isdeleted\":0}"
        let cases: [(String, String)] = [
            ("{\"users\":[\(user),\(user)],\"tweets\":[]}", "$.users[1]"),
            ("{\"users\":[{\"username\":\"\",\"password\":\"p\",\"session_token\":\"0\"}],\"tweets\":[]}", "$.users[0].username"),
            ("{\"users\":[{\"username\":\"a\",\"password\":\"\",\"session_token\":\"0\"}],\"tweets\":[]}", "$.users[0].password"),
            // A hand-written token ("ABC") loads since issue 31; an empty one does not.
            ("{\"users\":[{\"username\":\"a\",\"password\":\"p\",\"session_token\":\"\"}],\"tweets\":[]}", "$.users[0].session_token"),
            ("{\"users\":[\(user)],\"tweets\":[\(tweet),\(tweet)]}", "$.tweets[1]"),
            ("{\"users\":[\(user)],\"tweets\":[\(tweet.replacingOccurrences(of: "\"a\"", with: "\"b\""))]}", "$.tweets[0].username"),
            ("{\"users\":[\(user)],\"tweets\":[\(tweet.replacingOccurrences(of: "00:00:00", with: "0:00:00"))]}", "$.tweets[0].time_stamp"),
            ("{\"users\":[\(user)],\"tweets\":[\(tweet.replacingOccurrences(of: "\"isdeleted\":0", with: "\"isdeleted\":2"))]}",
             "$.tweets[0].isdeleted"),
            ("{\"users\":[\(user)],\"tweets\":[\(tweet.replacingOccurrences(of: "\"tweet_id\":1", with: "\"tweet_id\":0"))]}",
             "$.tweets[0].tweet_id"),
            ("{\"users\":[\(user)]}", "$.tweets"),
            ("[]", "$"),
        ]
        for (document, path) in cases {
            XCTAssertThrowsError(try api.loadState(SeedJSON(Array(document.utf8))), document) { error in
                XCTAssertEqual((error as? SeedError)?.path, path, document)
            }
        }
        XCTAssertEqual(api.exportState(), before)
        api.reset()
        XCTAssertEqual(api.exportState(), before)
    }

    /// Tweet ids in a document may come in any order and with gaps: answers list them ascending,
    /// each is found for a delete, and a repeat is named wherever it comes.
    func testLoadedTweetIDsOutOfOrderAndWithGaps() throws {
        let token = String(repeating: "a1", count: 20)
        func tweet(_ id: Int, _ user: String = "a") -> String {
            #"{"tweet_id":\#(id),"username":"\#(user)","time_stamp":"2016-01-01 00:00:\#(id % 60 + 10)","tweet":"t\#(id)","isdeleted":0}"#
        }
        let users = #"[{"username":"a","password":"p","session_token":"\#(token)"},{"username":"b","password":"p","session_token":"0"}]"#
        try api.loadState(SeedJSON(Array(#"{"users":\#(users),"tweets":[\#(tweet(30)),\#(tweet(10, "b")),\#(tweet(20)),\#(tweet(45))]}"#.utf8)))
        assertJSON(try get("/get-tweets.cgi?date=2016-01-01%2000:00:39"),
                   #"{"tweets":[{"tweet_id":30,"username":"a","time_stamp":"2016-01-01 00:00:40","tweet":"t30","isdeleted":0},"#
                       + #"{"tweet_id":45,"username":"a","time_stamp":"2016-01-01 00:00:55","tweet":"t45","isdeleted":0}]}"#)
        XCTAssertEqual(try Self.tweetIDs(get("/get-tweets.cgi")), [10, 20, 30, 45])
        for missing in ["9", "11", "25", "44", "46"] {
            assertNotFound(try post("/del-tweet.cgi", ["username": "a", "session_token": token, "tweet_id": missing]))
        }
        assertError(try post("/del-tweet.cgi", ["username": "a", "session_token": token, "tweet_id": "10"]), 403, "Forbidden")
        for id in ["20", "45", "30"] {
            assertJSON(try post("/del-tweet.cgi", ["username": "a", "session_token": token, "tweet_id": id]),
                       #"{"tweet_id":"\#(id)","isdeleted":1,"tweet":"[deleted]"}"#)
        }
        XCTAssertEqual(try post("/add-tweet.cgi", ["username": "a", "session_token": token, "tweet": "next"]).status, 200)
        assertJSON(try get("/get-tweets.cgi?date=2016-04-22%2009:59:59"),
                   #"{"tweets":[{"tweet_id":20,"username":"a","time_stamp":"2016-04-22 10:00:00","tweet":"[deleted]","isdeleted":1},"#
                       + #"{"tweet_id":30,"username":"a","time_stamp":"2016-04-22 10:00:00","tweet":"[deleted]","isdeleted":1},"#
                       + #"{"tweet_id":45,"username":"a","time_stamp":"2016-04-22 10:00:00","tweet":"[deleted]","isdeleted":1},"#
                       + #"{"tweet_id":46,"username":"a","time_stamp":"2016-04-22 10:00:00","tweet":"next","isdeleted":0}]}"#)

        // A repeat is found among ids read before and after a lower one; a row's unknown author is
        // named before its repeated id.
        for (tweets, path, problem) in [
            ([tweet(1), tweet(3), tweet(2), tweet(3)], "$.tweets[3]", "duplicate tweet_id 3"),
            ([tweet(2), tweet(1), tweet(2, "c")], "$.tweets[2].username", "c is not a user"),
        ] {
            let document = #"{"users":\#(users),"tweets":[\#(tweets.joined(separator: ","))]}"#
            XCTAssertThrowsError(try api.loadState(SeedJSON(Array(document.utf8))), document) { error in
                XCTAssertEqual(error as? SeedError, SeedError(path: path, problem: problem), document)
            }
        }
    }

    /// SQLite's AUTOINCREMENT gives no id after the largest integer: the insert fails and the script
    /// dies (500, nothing stored), where the next id used to overflow and end the server.
    func testATweetAfterTheLargestIDIsA500AndTheServerGoesOn() throws {
        let token = String(repeating: "c3", count: 20)
        func tweet(_ id: Int) -> String {
            #"{"tweet_id":\#(id),"username":"a","time_stamp":"2016-01-01 00:00:00","tweet":"t","isdeleted":0}"#
        }
        let users = #"[{"username":"a","password":"p","session_token":"\#(token)"}]"#
        try api.loadState(SeedJSON(Array(#"{"users":\#(users),"tweets":[\#(tweet(Int.max - 1))]}"#.utf8)))
        let add = ["username": "a", "session_token": token, "tweet": "last"] as KeyValuePairs
        assertJSON(try post("/add-tweet.cgi", add), #"{"tweet":"last"}"#)
        assertError(try post("/add-tweet.cgi", add), 500, "Internal Server Error")
        XCTAssertEqual(try Self.tweetIDs(get("/get-tweets.cgi")), [Int.max - 1, Int.max])
        assertJSON(try post("/del-tweet.cgi", ["username": "a", "session_token": token, "tweet_id": String(Int.max)]),
                   #"{"tweet_id":"\#(Int.max)","isdeleted":1,"tweet":"[deleted]"}"#)
    }

    /// A state document's strings are read where they lie unless escaped: escaped and raw ones,
    /// non-ASCII, empty and long texts (lengths kept in one, two and three bytes) all come back
    /// exactly, through deletes, a new tweet and an export; their problems name them decoded.
    func testStateStringsEscapedRawLongAndWrong() throws {
        let token = String(repeating: "b2", count: 20)
        let (medium, long) = (String(repeating: "m", count: 200), String(repeating: "l", count: 20_000))
        func tweet(_ id: Int, _ user: String, _ stamp: String, _ text: String, deleted: Int = 0) -> String {
            #"{"tweet_id":\#(id),"username":"\#(user)","time_stamp":"\#(stamp)","tweet":"\#(text)","isdeleted":\#(deleted)}"#
        }
        func document(_ tweets: [String]) -> String {
            #"{"users":[{"username":"a","password":"p","session_token":"\#(token)"},"#
                + #"{"username":"\u00e9t\u00e9 \/ x","password":"p","session_token":"0"},"#
                + #"{"username":"a name of more than fifteen bytes","password":"p","session_token":"0"}],"#
                + #""tweets":[\#(tweets.joined(separator: ","))]}"#
        }
        let loaded = try server.request("PUT", "/_mock/state/wsuv", body: document([
            tweet(1, #"\u0061"#, "2016-01-01 00:00:01", "plain"),
            tweet(2, "été / x", #"2016-01-01 00:00:0\u0032"#, #"two\nlines \"quoted\" \u00e9 \ud83d\ude00 a\/b"#),
            tweet(3, "a name of more than fifteen bytes", "2016-01-01 00:00:03", "日本語 ✓", deleted: 1),
            tweet(4, "a", "2016-01-01 00:00:04", medium),
            tweet(5, "a", "2016-01-01 00:00:05", long),
            tweet(6, "a", "2016-01-01 00:00:06", ""),
        ]))
        XCTAssertEqual(loaded.text, #"{"loaded":"wsuv"}"#)
        func expected(_ id: Int, _ user: String, _ stamp: String, _ text: String, deleted: Int = 0) -> String {
            #"{"tweet_id":\#(id),"username":"\#(user)","time_stamp":"\#(stamp)","tweet":"\#(text)","isdeleted":\#(deleted)}"#
        }
        let seeded = [
            expected(1, "a", "2016-01-01 00:00:01", "plain"),
            expected(2, "été / x", "2016-01-01 00:00:02", #"two\nlines \"quoted\" é 😀 a/b"#),
            expected(3, "a name of more than fifteen bytes", "2016-01-01 00:00:03", "日本語 ✓", deleted: 1),
            expected(4, "a", "2016-01-01 00:00:04", medium),
            expected(5, "a", "2016-01-01 00:00:05", long),
            expected(6, "a", "2016-01-01 00:00:06", ""),
        ]
        assertJSON(try get("/get-tweets.cgi"), #"{"tweets":[\#(seeded.joined(separator: ","))]}"#)

        for _ in 0..<2 {
            assertJSON(try post("/del-tweet.cgi", ["username": "a", "session_token": token, "tweet_id": "4"]),
                       #"{"tweet_id":"4","isdeleted":1,"tweet":"[deleted]"}"#)
        }
        XCTAssertEqual(try post("/add-tweet.cgi", ["username": "a", "session_token": token, "tweet": "new é"]).status, 200)
        let changed = [seeded[0], seeded[1], seeded[2], expected(4, "a", "2016-04-22 10:00:00", "[deleted]", deleted: 1),
                       seeded[4], seeded[5], expected(7, "a", "2016-04-22 10:00:00", "new é")]
        assertJSON(try get("/get-tweets.cgi"), #"{"tweets":[\#(changed.joined(separator: ","))]}"#)
        let exported = try get("/_mock/state/wsuv")
        XCTAssertTrue(exported.text.hasSuffix(#""tweets":[\#(changed.joined(separator: ","))]}"#), exported.text)
        XCTAssertEqual(try server.request("PUT", "/_mock/state/wsuv", body: exported.body).status, 200)
        assertJSON(try get("/get-tweets.cgi"), #"{"tweets":[\#(changed.joined(separator: ","))]}"#)

        for (tweets, path, detail) in [
            ([tweet(1, #"\u0063"#, "2016-01-01 00:00:01", "t")], "$.tweets[0].username", "c is not a user"),
            ([tweet(1, "été / y", "2016-01-01 00:00:01", "t")], "$.tweets[0].username", "été / y is not a user"),
            ([tweet(1, "a", #"2016-01-01 0\u0030:00:1"#, "t")], "$.tweets[0].time_stamp", "expected YYYY-MM-DD HH:MM:SS, got 2016-01-01 00:00:1"),
            ([tweet(1, "a", "2016-01-01T00:00:01", "t")], "$.tweets[0].time_stamp", "expected YYYY-MM-DD HH:MM:SS, got 2016-01-01T00:00:01"),
            ([tweet(1, "a", "2016-01-01 00:00:01", "t").replacingOccurrences(of: #""tweet":"t""#, with: #""tweet":7"#)],
             "$.tweets[0].tweet", "expected a string"),
            ([tweet(1, "a", "2016-01-01 00:00:01", "t").replacingOccurrences(of: #""username":"a""#, with: #""username":null"#)],
             "$.tweets[0].username", "expected a string"),
        ] {
            XCTAssertEqual(try server.request("PUT", "/_mock/state/wsuv", body: document(tweets)).text,
                           #"{"error":"invalid_state","path":"\#(path)","detail":"\#(detail)"}"#, tweets[0])
        }
        // A control character or a cut string is not JSON, whichever field it is in.
        for broken in [tweet(1, "a", "2016-01-01 00:00:01", "t\u{1}"), tweet(1, "a\u{1}", "2016-01-01 00:00:01", "t"),
                       tweet(1, "a", "2016-01-01 00:00:01\u{1}", "t")] {
            XCTAssertEqual(try server.request("PUT", "/_mock/state/wsuv", body: document([broken])).text,
                           #"{"error":"invalid_state","path":"$","detail":"the body is not valid JSON"}"#, broken)
        }
        XCTAssertEqual(try server.request("PUT", "/_mock/state/wsuv", body: #"{"users":[],"tweets":[{"tweet_id":1,"username":"a"#).text,
                       #"{"error":"invalid_state","path":"$","detail":"the body is not valid JSON"}"#)
        assertJSON(try get("/get-tweets.cgi"), #"{"tweets":[\#(changed.joined(separator: ","))]}"#)
    }

    /// Users are indexed by name only once all are read: every author is still found, and every
    /// problem is the one a row-by-row reading meets first. A logged-out token is `"0"` however
    /// it is spelled, and nothing else is.
    func testUsersIndexedOnceAllAreReadKeepProblemsInOrder() throws {
        let count = 300
        func user(_ n: Int, name: String? = nil, password: String = "pw", token: String = "0") -> String {
            #"{"username":"\#(name ?? "user \(n)")","password":"\#(password)","session_token":"\#(token)"}"#
        }
        func tweet(_ id: Int, author: String? = nil, stamp: String? = nil) -> String {
            let seconds = String(id % 60).count == 1 ? "0\(id % 60)" : String(id % 60)
            return #"{"tweet_id":\#(id),"username":"\#(author ?? "user \(id * 7 % count)")","#
                + #""time_stamp":"\#(stamp ?? "2016-01-01 00:\(id / 60 + 10):\(seconds)")","tweet":"t\#(id)","isdeleted":0}"#
        }
        func document(users: [Int: String] = [:], tweets: [Int: String] = [:]) -> String {
            let userRows = (0..<count).map { users[$0] ?? user($0) }
            let tweetRows = (1...count).map { tweets[$0] ?? tweet($0) }
            return #"{"users":[\#(userRows.joined(separator: ","))],"tweets":[\#(tweetRows.joined(separator: ","))]}"#
        }
        func load(_ document: String) throws -> String {
            try server.request("PUT", "/_mock/state/wsuv", body: document).text
        }
        func problem(_ path: String, _ detail: String) -> String {
            #"{"error":"invalid_state","path":"\#(path)","detail":"\#(detail)"}"#
        }

        let token = String(repeating: "c3", count: 20)
        XCTAssertEqual(try load(document(users: [250: user(250, token: token), 251: user(251, token: #"\u0030"#)],
                                         tweets: [200: tweet(200, author: #"\u0075ser 3"#)])),
                       #"{"loaded":"wsuv"}"#)
        let answer = try JSONParser.parse(get("/get-tweets.cgi").body)
        let authors = try XCTUnwrap(answer.objectValue?["tweets"]?.arrayValue).map { $0.objectValue?["username"]?.stringValue }
        XCTAssertEqual(authors, (1...count).map { $0 == 200 ? "user 3" : "user \($0 * 7 % count)" })
        XCTAssertEqual(try login("user 199", "pw").utf8.count, 40)
        assertError(try post("/register.cgi", ["username": "user 299", "password": "x"]), 409, "Conflict User Exists")
        XCTAssertEqual(try post("/register.cgi", ["username": "user 300", "password": "x"]).status, 200)
        XCTAssertEqual(try post("/add-tweet.cgi", ["username": "user 250", "session_token": token, "tweet": "late"]).status, 200)
        assertUnauthorized(try post("/add-tweet.cgi", ["username": "user 251", "session_token": "0", "tweet": "no"]))
        XCTAssertEqual(try login("user 251", "pw").utf8.count, 40)

        for (document, expected) in [
            // A repeated name is found once all users are read, but named before a later row's problem.
            (document(users: [40: user(40, name: "user 3")]), problem("$.users[40]", "duplicate username user 3")),
            (document(users: [70: user(70, name: "user 3")]), problem("$.users[70]", "duplicate username user 3")),
            (document(users: [70: user(70, name: "user 3"), 280: user(280, password: "")]), problem("$.users[70]", "duplicate username user 3")),
            (document(users: [69: user(69, password: ""), 70: user(70, name: "user 3")]), problem("$.users[69].password", "must not be empty")),
            (document(users: [5: user(5, token: token), 70: user(70, name: "user 3", token: token)]),
             problem("$.users[70].session_token", "another user holds this token")),
            // A hand-written token loads (issue 31 reversed its refusal); only an empty one is refused.
            (document(users: [9: user(9, token: "00")]), #"{"loaded":"wsuv"}"#),
            (document(users: [9: user(9, token: "")]), problem("$.users[9].session_token", "must not be empty")),
            // An unknown author is named before any later problem.
            (document(tweets: [150: tweet(150, author: "nobody")]), problem("$.tweets[149].username", "nobody is not a user")),
            (document(tweets: [150: tweet(150, author: "nobody"), 151: tweet(151, stamp: "soon")]),
             problem("$.tweets[149].username", "nobody is not a user")),
            (document(tweets: [130: tweet(130, author: "nobody"), 131: tweet(131).replacingOccurrences(of: #","isdeleted":0"#, with: "")]),
             problem("$.tweets[129].username", "nobody is not a user")),
            (document(tweets: [150: tweet(150, author: "nobody"), 151: tweet(150)]), problem("$.tweets[149].username", "nobody is not a user")),
            (document(tweets: [128: tweet(128, author: "nobody"), 129: tweet(129, author: "nobody either")]),
             problem("$.tweets[127].username", "nobody is not a user")),
            (document(tweets: [149: tweet(149, stamp: "soon"), 150: tweet(150, author: "nobody")]),
             problem("$.tweets[148].time_stamp", "expected YYYY-MM-DD HH:MM:SS, got soon")),
            (document(tweets: [150: tweet(149)]), problem("$.tweets[149]", "duplicate tweet_id 149")),
            (document(tweets: [count: tweet(count, author: "nobody")]), problem("$.tweets[299].username", "nobody is not a user")),
        ] {
            XCTAssertEqual(try load(document), expected)
        }
    }

    func testAClockOutsideSQLitesYearsStampsTheNearestEnd() throws {
        try start(timeZone: XCTUnwrap(TimeZone(identifier: "UTC")))
        let token = try login("bob", "builder42")
        // 10000-01-01 01:00:00 and -0001-12-31 00:00:00 UTC.
        for unix in [253_402_304_400.0, -62_167_305_600.0] {
            now.withLock { $0 = Date(timeIntervalSince1970: unix) }
            XCTAssertEqual(try post("/add-tweet.cgi", ["username": "bob", "session_token": token, "tweet": "t"]).status, 200)
        }
        XCTAssertTrue(try get("/get-tweets.cgi").text.hasSuffix(
            #"{"tweet_id":23,"username":"bob","time_stamp":"9999-12-31 23:59:59","tweet":"t","isdeleted":0},"#
                + #"{"tweet_id":24,"username":"bob","time_stamp":"0000-01-01 00:00:00","tweet":"t","isdeleted":0}]}"#))
    }

    func testInjectedFaultsAreBareStatusesWithTheScriptsPhrases() {
        for (status, phrase) in [(503, "Database Unavailable"), (500, "Internal Server Error"), (502, "Bad Gateway"),
                                 (429, "Too Many Requests")] {
            let fault = api.injectedFault(status: status)
            XCTAssertEqual(fault.status, status)
            XCTAssertEqual(fault.reasonPhrase, phrase)
            XCTAssertEqual(fault.body, [])
            XCTAssertEqual(fault.headers["Content-Type"], "application/json; charset=utf-8")
        }
    }

    // MARK: Size limits

    /// Tables at their row cap (lowered from 100,000 to what the seed holds and two more): a
    /// register and a tweet past it are the scripts' bare `503 Database Unavailable`, and neither
    /// is stored (docs/apis/wsuv-twitter.md#size-limits).
    func testFullTablesRefuseRegisterAndTweetAndStoreNothing() throws {
        let seeded = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(get("/_mock/state/wsuv").body)) as? [String: [Any]])
        let seededUsers = try XCTUnwrap(seeded["users"]?.count), tweets = try XCTUnwrap(seeded["tweets"]?.count)
        try start(rowLimit: max(seededUsers, tweets) + 2)
        let token = try login("alice", "wonderland")
        for index in seededUsers..<(max(seededUsers, tweets) + 2) {
            XCTAssertEqual(try post("/register.cgi", ["username": "u\(index)", "password": "pw"]).status, 200)
        }
        for _ in tweets..<(max(seededUsers, tweets) + 2) {
            XCTAssertEqual(try post("/add-tweet.cgi", ["username": "alice", "session_token": token, "tweet": "t"]).status, 200)
        }
        let users = try stateUserCount()
        let tweetList = try get("/get-tweets.cgi").text
        assertError(try post("/register.cgi", ["username": "newcomer", "password": "pw"]), 503, "Database Unavailable")
        assertError(try post("/add-tweet.cgi", ["username": "alice", "session_token": token, "tweet": "one more"]),
                    503, "Database Unavailable")
        assertNotFound(try post("/login.cgi", ["username": "newcomer", "password": "pw"]))
        XCTAssertEqual(try stateUserCount(), users)
        XCTAssertEqual(try get("/get-tweets.cgi").text, tweetList)
    }

    private func stateUserCount() throws -> Int? {
        try (JSONSerialization.jsonObject(with: Data(get("/_mock/state/wsuv").body)) as? [String: [Any]])?["users"]?.count
    }

    /// Stored text may take half of the memory budget (here 512 KiB of 1 MiB): tweets of 100,000
    /// characters are stored while they fit, then refused with the scripts' 503 and not stored,
    /// and a reset gives the share back.
    func testTweetsPastTheStoredShareAreRefusedAndNotStored() throws {
        try start(memoryBudget: 1 << 20)
        let token = try login("alice", "wonderland")
        let tweet = String(repeating: "w", count: 100_000)
        let answers = try (0..<8).map { _ in try post("/add-tweet.cgi", ["username": "alice", "session_token": token, "tweet": tweet]) }
        // 5 × (100,000 + 256 bytes) fit in 512 KiB, a sixth does not.
        for stored in answers.prefix(5) { assertJSON(stored, #"{"tweet":""# + tweet + #""}"#) }
        for refused in answers.dropFirst(5) { assertError(refused, 503, "Database Unavailable") }
        XCTAssertEqual(try get("/get-tweets.cgi").text.components(separatedBy: tweet).count - 1, 5)
        assertError(try post("/register.cgi", ["username": "dave", "password": String(repeating: "p", count: 30_000)]),
                    503, "Database Unavailable")
        XCTAssertEqual(try server.request("POST", "/_mock/reset/wsuv").status, 200)
        let again = try login("alice", "wonderland")
        assertJSON(try post("/add-tweet.cgi", ["username": "alice", "session_token": again, "tweet": tweet]),
                   #"{"tweet":""# + tweet + #""}"#)
    }
}
