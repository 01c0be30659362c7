import Foundation
import MockApp
import MockHTTP
import MockKit
import TestSupport
import XCTest

/// Every error carries a one-line reason for people, in the console line and the journal, and
/// never in the answer's body (docs/admin.md#why-a-request-failed).
final class ReasonTests: XCTestCase {
    private let console = ConsoleLines()
    private var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer(settings: AppSettings(log: RequestLog(format: .text, output: console.append)))
    }

    override func tearDown() {
        server = nil
    }

    func testAnUnknownPathNamesTheClosestRouteInTheBodyTheConsoleAndTheJournal() throws {
        let response = try server.request("GET", "/api/thread/")
        XCTAssertEqual(response.text, #"{"error":"not_found","path":"/api/thread/","hint":"GET /api/thread"}"#)
        XCTAssertEqual(try reasonLogged(for: "/api/thread/"), "no API serves this path; did you mean `GET /api/thread`?")
        XCTAssertEqual(try journalReason(), "no API serves this path; did you mean `GET /api/thread`?")

        let filled = try server.request("GET", "/api/message/7")
        XCTAssertEqual(filled.text, #"{"error":"not_found","path":"/api/message/7","hint":"GET /api/messages/7"}"#)
        let method = try server.request("POST", "/api/thread/ad")
        XCTAssertEqual(method.text, #"{"error":"not_found","path":"/api/thread/ad","hint":"POST /api/thread/add"}"#)
        let quoted = try server.request("GET", #"/_mock/requests""#)
        XCTAssertEqual(quoted.text, #"{"error":"not_found","path":"/_mock/requests\"","hint":"GET /_mock/requests"}"#)
    }

    /// With `--only`, a path of an API left out names that API instead of a served route it is not.
    func testAPathOfAnAPINotServedNamesIt() throws {
        var settings = AppSettings(log: RequestLog(format: .text, output: console.append))
        settings.routesNotServed = APICatalog.routesLeftOut(by: ["threads", "otp"], seed: TestServer.shippedSeed, options: APIOptions())
        server = try TestServer(apis: ["threads", "otp"], settings: settings)
        let login = try server.request("GET", "/login?username=admin&password=1234")
        XCTAssertEqual(login.text, #"{"error":"not_found","path":"/login","not_served":"internproducts"}"#)
        XCTAssertEqual(try reasonLogged(for: "/login?username=admin&password=1234"), "internproducts is not served (--only threads,otp)")
        let misspelt = try server.request("GET", "/product")
        XCTAssertEqual(misspelt.text, #"{"error":"not_found","path":"/product","hint":"GET /products","not_served":"internproducts"}"#)
        XCTAssertEqual(try reasonLogged(for: "/product"), "no API served here has this path; did you mean `GET /products`? "
                       + "It is internproducts's, which is not served (--only threads,otp)")
        XCTAssertEqual(try server.request("GET", "/api/v2/workspace").text,
                       #"{"error":"not_found","path":"/api/v2/workspace","not_served":"cse118"}"#)
        XCTAssertEqual(try server.request("GET", "/api/thread/").text,
                       #"{"error":"not_found","path":"/api/thread/","hint":"GET /api/thread"}"#, "served routes are hinted as before")
    }

    /// A stub's path asked without what the stub also needs: the stub is named with the part that
    /// did not match, and no unrelated course route is offered.
    func testAStubThatAlmostMatchedIsNamedWithWhatDidNotMatch() throws {
        let apis = try APICatalog.load(["threads", "cse118"], seed: TestServer.shippedSeed, options: APIOptions())
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/stubs-example")
        let settings = AppSettings(log: RequestLog(format: .text, output: console.append))
        server = try TestServer(responder: MockApp(apis: apis, settings: settings, stubs: StubSet.load(folder: examples, apis: apis)))
        let path = "/api/v2/courses/CS118/announcements"
        XCTAssertEqual(try server.request("GET", path + "?term=fall").status, 200)
        let bare = try server.request("GET", path)
        XCTAssertEqual(bare.text, #"{"error":"not_found","path":"\#(path)","stub":"GET /api/v2/courses/{course_id}/announcements"}"#)
        let reason = try XCTUnwrap(try reasonLogged(for: path))
        XCTAssertTrue(reason.hasPrefix("no API serves this path, and the stub GET /api/v2/courses/{course_id}/announcements (")
                      && reason.hasSuffix("threads-exercise.json:6:3) almost matched: its query needs term=fall; the request has no term"), reason)
        _ = try server.request("GET", path + "?term=spring")
        XCTAssertTrue(try XCTUnwrap(reasonLogged(for: path + "?term=spring")).hasSuffix("its query needs term=fall, not term=spring"))
        _ = try server.request("POST", "/api/v2/feedback", body: #"{"stars":5}"#)
        XCTAssertTrue(try XCTUnwrap(reasonLogged(for: "/api/v2/feedback")).hasSuffix(#"almost matched: its body must contain "rating""#))
        _ = try server.request("GET", "/api/v2/feedback")
        XCTAssertTrue(try XCTUnwrap(reasonLogged(for: "/api/v2/feedback", skipping: 1)).hasSuffix("almost matched: it takes POST, not GET"))

        // Without the stubs, the path is far from every course route: no hint rather than a wrong one
        // (it used to be `DELETE /api/v2/channel/{id}`).
        server = try TestServer(responder: MockApp(apis: apis, settings: settings))
        XCTAssertEqual(try server.request("GET", path).text, #"{"error":"not_found","path":"\#(path)"}"#)
    }

    func testAPathFarFromEveryRouteHasNoHint() throws {
        XCTAssertEqual(try server.request("GET", "/favicon.ico").text, #"{"error":"not_found","path":"/favicon.ico"}"#)
        XCTAssertEqual(try reasonLogged(for: "/favicon.ico"), "no API serves this path")
    }

    /// A path over 512 bytes gets no hint, even one an extra segment away (a segment costs the
    /// same whatever its length): comparing such paths with every route cost milliseconds each.
    func testAPathOver512BytesHasNoHint() throws {
        let atTheLimit = "/api/thread/" + String(repeating: "a", count: 500)
        XCTAssertEqual(try server.request("GET", atTheLimit).text, #"{"error":"not_found","path":"\#(atTheLimit)","hint":"GET /api/thread"}"#)
        let over = atTheLimit + "a"
        XCTAssertEqual(try server.request("GET", over).text, #"{"error":"not_found","path":"\#(over)"}"#)
    }

    func testAMethodThePathDoesNotTakeListsThoseItDoes() throws {
        let response = try server.request("PUT", "/api/threads")
        XCTAssertEqual(response.text, #"{"status":"error","message":"Method not allowed."}"#, "the body is the API's own")
        XCTAssertEqual(try reasonLogged(for: "/api/threads"), "/api/threads does not take PUT, only GET, HEAD, OPTIONS")
        XCTAssertEqual(try journalReason(), "/api/threads does not take PUT, only GET, HEAD, OPTIONS")
    }

    func testAnInjectedFaultSaysSo() throws {
        _ = try server.request("PUT", "/_mock/faults", body: #"{"error_status":500,"apis":["threads"]}"#)
        let response = try server.request("GET", "/api/threads")
        XCTAssertEqual(response.text, #"{"status":"error","message":"Service unavailable."}"#)
        let reason = "injected fault: 500 (error_rate 1), set through /_mock/faults (DELETE /_mock/faults clears it)"
        XCTAssertEqual(try reasonLogged(for: "/api/threads"), reason)
        XCTAssertEqual(try journalReason(), reason)
    }

    func testASuccessHasNoReason() throws {
        XCTAssertEqual(try server.request("POST", "/api/login", body: "email=a@a.com&password=test123").status, 200)
        XCTAssertTrue(try console.waitForLine(containing: " /api/login 200 ").hasSuffix(" threads"))
        XCTAssertEqual(try server.lastJournalEntry()["reason"], .null)
    }

    // MARK: Each API's own errors (their docs/apis pages list them)

    func testThreadsReasons() throws {
        let unknownToken = "this server never issued that token or has forgotten it (tokens are forgotten at restart and at reset): log in again"
        try assertReason("POST", "/api/login", body: "email=a@a.com", type: "application/x-www-form-urlencoded",
                         #"{"status":"error","message":"Password is required."}"#,
                         "required field `password` missing; the body had form fields `email` (Content-Type: application/x-www-form-urlencoded)")
        try assertReason("POST", "/api/login", body: #"{"email":"#, type: "application/json",
                         #"{"status":"error","message":"Invalid JSON body."}"#,
                         "the body is not valid JSON (Content-Type: application/json)")
        try assertReason("GET", "/api/threads", #"{"status":"error","message":"Token not found."}"#,
                         "Authorization header missing; send `Authorization: BEARER <token>` with the token from logging in")
        try assertReason("GET", "/api/threads", headers: [("Authorization", "Token abc")], #"{"status":"error","message":"Token not found."}"#,
                         "Authorization header malformed: expected `BEARER <token>`, got `Token abc`")
        try assertReason("GET", "/api/threads", headers: [("Authorization", "Bearer forgotten")],
                         #"{"status":"error","message":"Invalid token."}"#, unknownToken)
        let login = try server.request("POST", "/api/login", body: "email=b@b.com&password=test123")
        let token = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(login.body)) as? [String: Any])?["token"] as? String)
        try assertReason("POST", "/api/thread/delete/1", headers: [("Authorization", "Bearer \(token)")],
                         #"{"status":"error","message":"You can only delete your own threads."}"#,
                         "thread 1 belongs to another user")
        _ = try server.request("POST", "/_mock/reset")
        try assertReason("GET", "/api/threads", headers: [("Authorization", "Bearer \(token)")],
                         #"{"status":"error","message":"Invalid token."}"#, unknownToken)
    }

    func testWSUVReasonsSayWhereTheScriptsReadParameters() throws {
        try assertReason("POST", "/cgi-bin/login.cgi", body: #"{"username":"alice","password":"wonderland"}"#, type: "application/json", "",
                         "required field `username` missing; the body had JSON fields `username`, `password` (Content-Type: application/json), "
                         + "but this endpoint reads form fields (Content-Type: application/x-www-form-urlencoded)")
        try assertReason("GET", "/cgi-bin/add-tweet.cgi?username=alice&session_token=x", "",
                         "required field `tweet` missing; the query string had `username`, `session_token`")
        try assertReason("POST", "/cgi-bin/login.cgi", body: "username=alice&password=wonderland&action=quit", "",
                         "action must be login or logout, got `quit`")
        try assertReason("POST", "/cgi-bin/login.cgi", body: "username=alice&password=wonderland",
                         type: "Application/X-WWW-Form-Urlencoded", "",
                         "required field `username` missing: CGI.pm reads no parameters from a body typed "
                         + "`Application/X-WWW-Form-Urlencoded` (it takes application/x-www-form-urlencoded… and, on POST, "
                         + "multipart/form-data…, in these letters)")
        try assertReason("FOO", "/cgi-bin/register.cgi?username=a&password=b", "",
                         "required field `username` missing: CGI.pm reads no parameters for method FOO (GET, HEAD and "
                         + "DELETE read the query, POST, PUT and PATCH the body)")
        try assertReason("POST", "/cgi-bin/login.cgi", body: "x", type: "multipart/form-data", "",
                         "CGI.pm died reading the multipart body: no boundary in the body, nothing after the first one, "
                         + "or a part no boundary ends (without boundary= in the Content-Type the body's first line is the "
                         + "boundary, and a body without Content-Length has none)")
    }

    func testInternProductsReasonsPointAtTheQueryString() throws {
        try assertReason("GET", "/login?username=admin", #"{"status":"FAILED","message":"Missing parameter: password"}"#,
                         "required field `password` missing; the query string had `username`")
        try assertReason("GET", "/products?loginToken=stale", #"{"status":"FAILED","message":"Invalid login token"}"#,
                         "loginToken: this server never issued that token or has forgotten it (tokens are forgotten at restart and at reset): log in again")
    }

    func testCSE118ReasonsTellFormFromJSON() throws {
        try assertReason("POST", "/api/v2/login", body: "email=a&password=b", type: "application/x-www-form-urlencoded",
                         nil, "the body had form fields `email`, `password` (Content-Type: application/x-www-form-urlencoded), "
                         + "but this endpoint reads a JSON object (Content-Type: application/json)")
        try assertReason("POST", "/api/v2/login", body: #"{"email":"a@b.c"}"#, type: "application/json", nil,
                         "required field `password` missing; the body had JSON fields `email` (Content-Type: application/json)")
        try assertReason("GET", "/api/v2/workspace", headers: [("Authorization", "Basic eDp5")],
                         #"{"message":"Invalid access token","status":403}"#,
                         "Authorization header malformed: expected `Bearer <token>`, got `Basic eDp5`")
    }

    func testOTPReasonsExplainItsTwoHundredErrors() throws {
        try assertReason("POST", "/api/send_verification_code", body: "phone_number=5305550100",
                         type: "application/x-www-form-urlencoded", nil,
                         "the body had form fields `phone_number` (Content-Type: application/x-www-form-urlencoded), "
                         + "but this endpoint reads a JSON object (Content-Type: application/json)")
        try assertReason("POST", "/api/user", body: "{}", nil, "x-authtoken header missing; send the auth_token from /api/verify_code")
    }

    // MARK: Helpers

    /// One request on its own connection: the body is exactly `body` (nil: not checked), and the
    /// console line and the journal entry carry `reason`.
    private func assertReason(_ method: String, _ target: String, headers: [(String, String)] = [], body: String = "",
                              type: String? = nil, _ expectedBody: String?, _ reason: String,
                              file: StaticString = #filePath, line: UInt = #line) throws {
        let marker = "X-Test-Marker"
        let id = UUID().uuidString
        var fields = headers + [(marker, id)]
        if let type { fields.append(("Content-Type", type)) }
        let linesBefore = console.all.count
        let response = try server.request(method, target, headers: fields, body: body)
        if let expectedBody { XCTAssertEqual(response.text, expectedBody, "the body stays the API's own", file: file, line: line) }
        XCTAssertEqual(try reasonLogged(for: target, skipping: linesBefore), reason, file: file, line: line)
        let entry = try server.lastJournalEntry()
        XCTAssertEqual(entry["request_headers"]?.objectValue?[marker.lowercased()]?.stringValue, id, file: file, line: line)
        XCTAssertEqual(entry["reason"]?.stringValue, reason, file: file, line: line)
    }

    /// The text in parentheses at the end of the console line of the last request to `target`.
    private func reasonLogged(for target: String, skipping: Int = 0) throws -> String? {
        let line = try console.waitForLine(containing: " \(target) ", skipping: skipping)
        guard let open = line.range(of: " (") , line.hasSuffix(")") else { return nil }
        return String(line[open.upperBound..<line.index(before: line.endIndex)])
    }

    /// The journal's newest reason; the console line is written after the journal entry, so a test
    /// that has waited for the line finds the entry.
    private func journalReason() throws -> String? {
        try server.lastJournalEntry()["reason"]?.stringValue
    }
}

/// `GET /_mock/requests` narrows the journal by api, method, path prefix and status or status
/// class, and counts what matches in `X-Total-Count`.
final class JournalFilterTests: XCTestCase {
    func testFiltersAndTheCount() throws {
        let server = try TestServer()
        _ = try server.request("POST", "/api/login", body: "email=a@a.com&password=test123")
        _ = try server.request("GET", "/api/threads")
        _ = try server.request("GET", "/api/threads?x=1")
        _ = try server.request("GET", "/login?username=admin&password=1234")
        _ = try server.request("GET", "/nowhere")
        _ = try server.request("GET", "/_mock/health")
        XCTAssertEqual(try paths(server, ""), ["/nowhere", "/login", "/api/threads", "/api/threads", "/api/login"])
        XCTAssertEqual(try paths(server, "?api=threads"), ["/api/threads", "/api/threads", "/api/login"])
        XCTAssertEqual(try paths(server, "?method=post"), ["/api/login"])
        XCTAssertEqual(try paths(server, "?path=/api/thr"), ["/api/threads", "/api/threads"])
        XCTAssertEqual(try paths(server, "?status=4xx"), ["/nowhere", "/api/threads", "/api/threads"])
        XCTAssertEqual(try paths(server, "?status=2XX&api=internproducts"), ["/login"])
        XCTAssertEqual(try paths(server, "?status=404"), ["/nowhere"])
        let limited = try server.request("GET", "/_mock/requests?status=4xx&limit=1")
        XCTAssertEqual(limited.headers["X-Total-Count"], "3", "the count is of every match, not only those shown")
        XCTAssertEqual(try server.request("GET", "/_mock/requests?api=otp").headers["X-Total-Count"], "0")
        let bad = try server.request("GET", "/_mock/requests?status=4x")
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(bad.text, #"{"error":"invalid_status","detail":"status must be a class such as 4xx or a status such as 404"}"#)
    }

    /// `after=ID`: only entries newer than ID, so the index page asks for what it has not shown yet.
    func testAfterAnIdOnlyNewerEntries() throws {
        let server = try TestServer()
        _ = try server.request("POST", "/api/login", body: "email=a@a.com&password=test123")
        _ = try server.request("GET", "/api/threads")
        _ = try server.request("GET", "/nowhere")
        XCTAssertEqual(try ids(server, ""), [3, 2, 1])
        XCTAssertEqual(try ids(server, "?after=1"), [3, 2])
        XCTAssertEqual(try ids(server, "?after=1&status=4xx&limit=1"), [3])
        XCTAssertEqual(try server.request("GET", "/_mock/requests?after=1&status=4xx&limit=1").headers["X-Total-Count"], "2")
        XCTAssertEqual(try ids(server, "?after=0&api=threads"), [2, 1])
        let nothingNewer = try server.request("GET", "/_mock/requests?after=3")
        XCTAssertEqual(nothingNewer.status, 200)
        XCTAssertEqual(nothingNewer.headers["Content-Type"], "application/json; charset=utf-8")
        XCTAssertEqual(nothingNewer.headers["X-Total-Count"], "0")
        XCTAssertEqual(nothingNewer.text, "[]")
        // One name per run, on every read, so a poller can tell a restart (ids count from 1 again).
        let run = try XCTUnwrap(nothingNewer.headers["X-Mock-Journal-Run"])
        XCTAssertEqual(try server.request("GET", "/_mock/requests").headers["X-Mock-Journal-Run"], run)
        XCTAssertNotEqual(try TestServer().request("GET", "/_mock/requests?after=3").headers["X-Mock-Journal-Run"], run)

        // A clear keeps counting, so a reader's cursor still means "newer than what I have", and
        // renames the run, so a page still showing the cleared entries starts over.
        XCTAssertEqual(try server.request("DELETE", "/_mock/requests").status, 204)
        let afterClear = try XCTUnwrap(try server.request("GET", "/_mock/requests").headers["X-Mock-Journal-Run"])
        XCTAssertNotEqual(afterClear, run)
        XCTAssertEqual(afterClear.split(separator: "-").first, run.split(separator: "-").first)
        _ = try server.request("GET", "/api/threads")
        XCTAssertEqual(try ids(server, "?after=3"), [4])
        XCTAssertTrue(try server.request("GET", "/_mock/requests?after=3").text.hasPrefix(#"[{"id":4,"at":""#))

        for bad in ["-1", "x", "", "1.5"] {
            let refused = try server.request("GET", "/_mock/requests?after=\(bad)")
            XCTAssertEqual(refused.status, 400, bad)
            XCTAssertEqual(refused.text, #"{"error":"invalid_after","detail":"after must be the id of an entry (0 or more)"}"#, bad)
        }
        for bad in ["-1", "abc", ""] {
            let refused = try server.request("GET", "/_mock/requests?limit=\(bad)")
            XCTAssertEqual(refused.status, 400, bad)
            XCTAssertEqual(refused.text, #"{"error":"invalid_limit","detail":"limit must be a whole number, 0 or more"}"#, bad)
        }
    }

    /// The index page polls with `after` every second; those polls stay off the console, other reads do not.
    func testJournalPollsStayOffTheConsole() throws {
        let console = ConsoleLines()
        let server = try TestServer(settings: AppSettings(log: RequestLog(format: .text, output: console.append)))
        _ = try server.request("GET", "/api/threads")
        _ = try server.request("GET", "/_mock/requests?after=0")
        _ = try server.request("GET", "/_mock/requests?limit=5")
        _ = try server.request("GET", "/_mock/requests?after=x")
        _ = try server.request("GET", "/nowhere")
        _ = try console.waitForLine(containing: " /nowhere ")
        let targets = console.all.map { $0.split(separator: " ")[3] }
        XCTAssertEqual(targets, ["/api/threads", "/_mock/requests?limit=5", "/_mock/requests?after=x", "/nowhere"])
    }

    func testEntriesKeepTheFirstFourKiBOfTheAnswer() throws {
        let server = try TestServer()
        _ = try server.request("POST", "/api/login", body: "email=a@a.com&password=nope")
        _ = try server.request("GET", "/products?loginToken=" + (try adminToken(server)))
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try server.request("GET", "/_mock/requests").body)) as? [[String: Any]])
        XCTAssertEqual(entries[2]["response_body"] as? String, #"{"status":"error","message":"Invalid email or password."}"#)
        let products = try XCTUnwrap(entries[0]["response_body"] as? String)
        XCTAssertGreaterThan(entries[0]["response_bytes"] as? Int ?? 0, 4096, "the seed's products answer is longer than the prefix")
        XCTAssertEqual(products.utf8.count, 4096)
    }

    private func adminToken(_ server: TestServer) throws -> String {
        let login = try server.request("GET", "/login?username=admin&password=1234")
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(login.body)) as? [String: Any])?["loginToken"] as? String)
    }

    private func ids(_ server: TestServer, _ query: String) throws -> [Int] {
        let response = try server.request("GET", "/_mock/requests" + query)
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
        return entries.compactMap { $0["id"] as? Int }
    }

    private func paths(_ server: TestServer, _ query: String) throws -> [String] {
        let response = try server.request("GET", "/_mock/requests" + query)
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
        XCTAssertEqual(response.headers["X-Total-Count"], String(entries.count), query)
        return entries.compactMap { $0["path"] as? String }
    }
}
