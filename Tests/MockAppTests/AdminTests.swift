import Foundation
import MockHTTP
import MockApp
import MockKit
import TestSupport
import XCTest

/// The control surface of docs/admin.md, over real sockets.
final class AdminTests: XCTestCase {
    private var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer(apis: ["threads"])
    }

    override func tearDown() {
        server = nil
    }

    private func login() throws -> String {
        let response = try server.request("POST", "/api/login", body: "email=a@a.com&password=test123")
        return String(response.text.split(separator: "\"")[7])
    }

    private func threads(_ token: String) throws -> ClientResponse {
        try server.request("GET", "/api/threads", headers: [("Authorization", "Bearer \(token)")])
    }

    func testHealth() throws {
        let response = try server.request("GET", "/_mock/health")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8")
        XCTAssertTrue(response.text.hasPrefix(#"{"status":"ok","version":"0.1.0","uptime_s":"#), response.text)
        XCTAssertTrue(response.text.hasSuffix(#","apis":["threads"]}"#), response.text)
        XCTAssertNil(response.headers["Access-Control-Allow-Origin"], "the control surface is not for browsers")
    }

    func testResetAnswersAndUnknownAPI() throws {
        XCTAssertEqual(try server.request("POST", "/_mock/reset").text, #"{"reset":["threads"]}"#)
        let unknown = try server.request("POST", "/_mock/reset/otp")
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(unknown.text, #"{"error":"unknown_api","api":"otp"}"#)
        XCTAssertEqual(try server.request("GET", "/_mock/reset").status, 405)
    }

    func testStateRoundTripKeepsEveryAnswerAndTokens() throws {
        let token = try login()
        _ = try server.request("POST", "/api/thread/add", headers: [("Authorization", "Bearer \(token)")], body: "title=kept")
        let before = try threads(token).text
        let exported = try server.request("GET", "/_mock/state/threads")
        XCTAssertEqual(exported.status, 200)
        XCTAssertTrue(exported.text.contains(#""next_ids":{"user":5,"thread":6,"message":13}"#), exported.text)
        XCTAssertTrue(exported.text.contains(token))

        _ = try server.request("POST", "/_mock/reset/threads")
        XCTAssertEqual(try threads(token).status, 401)
        let loaded = try server.request("PUT", "/_mock/state/threads", body: exported.body)
        XCTAssertEqual(loaded.text, #"{"loaded":"threads"}"#)
        XCTAssertEqual(try threads(token).text, before)
        XCTAssertEqual(try server.request("GET", "/_mock/state/threads").text, exported.text)
        // Reset still goes to the seed, not to the loaded document.
        _ = try server.request("POST", "/_mock/reset/threads")
        XCTAssertEqual(try threads(token).status, 401)
        XCTAssertFalse(try server.request("GET", "/_mock/state/threads").text.contains("kept"))
    }

    func testInvalidStateChangesNothing() throws {
        let original = try server.request("GET", "/_mock/state/threads").text
        let broken = original.replacingOccurrences(of: #""email":"b@b.com""#, with: #""email":7"#)
        let response = try server.request("PUT", "/_mock/state/threads", body: broken)
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.text, #"{"error":"invalid_state","path":"$.users[0].email","detail":"expected a string"}"#)
        let garbage = try server.request("PUT", "/_mock/state/threads", body: "{not json")
        XCTAssertEqual(garbage.text, #"{"error":"invalid_state","path":"$","detail":"the body is not valid JSON"}"#)
        let dangling = original.replacingOccurrences(of: #""thread_id":4,"user_id":4"#, with: #""thread_id":4,"user_id":44"#)
        XCTAssertEqual(try server.request("PUT", "/_mock/state/threads", body: dangling).text,
                       #"{"error":"invalid_state","path":"$.threads[3]","detail":"user_id 44 is not a user"}"#)
        XCTAssertEqual(try server.request("GET", "/_mock/state/threads").text, original)
    }

    func testJournalEntryKeepsAtMostFourKiBOfHeaders() throws {
        let huge = (1...20).map { ("X-Filler-\($0)", String(repeating: "v", count: 3000)) }
        _ = try server.request("GET", "/api/thread/all", headers: [("X-Small", "kept")] + huge)
        let journal = try server.request("GET", "/_mock/requests?limit=1")
        let entry = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(journal.body)) as? [[String: Any]])?.first)
        let headers = try XCTUnwrap(entry["request_headers"] as? [String: String])
        XCTAssertEqual(headers["x-small"], "kept")
        XCTAssertEqual(headers["x-filler-1"], String(repeating: "v", count: 1024))
        XCTAssertNil(headers["x-filler-20"])
        XCTAssertLessThanOrEqual(headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }, 4096)
        XCTAssertEqual(entry["request_headers_cut"] as? Bool, true)
        XCTAssertLessThan(journal.body.count, 8 * 1024)
    }

    func testJournalRecordsCourseRequestsNewestFirst() throws {
        _ = try server.request("POST", "/api/login?x=1", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                               body: "email=a@a.com&password=nope")
        _ = try server.request("GET", "/favicon.ico")
        _ = try server.request("POST", "/api/thread/add", body: [0xFF, 0xFE])
        _ = try server.request("GET", "/_mock/health")
        let journal = try server.request("GET", "/_mock/requests")
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(journal.body)) as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["path"] as? String }, ["/api/thread/add", "/favicon.ico", "/api/login"])
        XCTAssertEqual(entries[0]["request_body"] as? String, "//4=")
        XCTAssertEqual(entries[0]["request_body_base64"] as? Bool, true)
        XCTAssertTrue(entries[1]["api"] is NSNull)
        let login = entries[2]
        XCTAssertEqual(login["api"] as? String, "threads")
        XCTAssertEqual(login["method"] as? String, "POST")
        XCTAssertEqual(login["query"] as? String, "x=1")
        XCTAssertEqual(login["status"] as? Int, 401)
        XCTAssertEqual(login["request_bytes"] as? Int, 27)
        XCTAssertEqual(login["request_body"] as? String, "email=a@a.com&password=nope")
        XCTAssertEqual((login["request_headers"] as? [String: String])?["content-type"], "application/x-www-form-urlencoded")
        XCTAssertNil(login["request_body_base64"])
        XCTAssertNil(login["request_headers_cut"])
        XCTAssertTrue((login["at"] as? String)?.hasSuffix("Z") ?? false)
        let keys = ["\"at\"", "\"api\"", "\"method\"", "\"path\"", "\"query\"", "\"status\"", "\"duration_ms\"",
                    "\"request_bytes\"", "\"response_bytes\"", "\"request_headers\"", "\"request_body\""]
        let positions = keys.map { journal.text.range(of: $0)!.lowerBound }
        XCTAssertEqual(positions, positions.sorted(), "keys in docs/admin.md's order")

        let limited = try server.request("GET", "/_mock/requests?limit=1&api=threads")
        XCTAssertEqual(try XCTUnwrap(JSONSerialization.jsonObject(with: Data(limited.body)) as? [[String: Any]]).count, 1)
        let none = try server.request("GET", "/_mock/requests?api=otp")
        XCTAssertEqual(none.text, "[]")
        XCTAssertEqual(try server.request("DELETE", "/_mock/requests").status, 204)
        XCTAssertEqual(try server.request("GET", "/_mock/requests").text, "[]")
    }

    func testJournalJoinsARepeatedHeaderUnderItsLowerCaseNameWhereItFirstCame() throws {
        _ = try server.request("GET", "/favicon.ico", headers: [("X-Twice", "a"), ("X-Other", "c"), ("x-TWICE", "b")])
        let journal = try server.request("GET", "/_mock/requests")
        XCTAssertTrue(journal.text.contains(#""x-twice":"a, b","x-other":"c""#), journal.text)
    }

    func testInjectedErrorsUseTheAPIFormatAndChangeNothing() throws {
        let token = try login()
        let set = try server.request("PUT", "/_mock/faults", body: #"{"error_status":500,"apis":["threads"]}"#)
        XCTAssertEqual(set.text, #"{"error_rate":1,"error_status":500,"apis":["threads"]}"#)
        XCTAssertEqual(try server.request("GET", "/_mock/faults").text, set.text)
        let failed = try server.request("POST", "/api/thread/add", headers: [("Authorization", "Bearer \(token)")], body: "title=lost")
        XCTAssertEqual(failed.status, 500)
        XCTAssertEqual(failed.text, #"{"status":"error","message":"Service unavailable."}"#)
        XCTAssertEqual(try server.request("GET", "/_mock/health").status, 200, "faults never touch the control surface")
        XCTAssertEqual(try server.request("DELETE", "/_mock/faults").status, 204)
        XCTAssertEqual(try server.request("GET", "/_mock/faults").text, "{}")
        XCTAssertFalse(try threads(token).text.contains("lost"))
        XCTAssertEqual(try server.request("PUT", "/_mock/faults", body: #"{"error_rate":0.5}"#).text,
                       #"{"error_rate":0.5,"error_status":503}"#)
    }

    /// `error_every`: every n-th request the rule meets fails, so a demo of a few requests shows it.
    func testErrorEveryFailsEveryNthRequestTheRuleMeets() throws {
        let set = try server.request("PUT", "/_mock/faults", body: #"{"error_every":3,"apis":["threads"]}"#)
        XCTAssertEqual(set.text, #"{"error_every":3,"error_status":503,"apis":["threads"]}"#)
        var statuses: [Int] = []
        for turn in 1...7 {
            statuses.append(try server.request("GET", "/api/threads").status)
            // Requests the rule does not apply to are not counted.
            if turn == 2 { XCTAssertEqual(try server.request("GET", "/nothing").status, 404) }
        }
        XCTAssertEqual(statuses, [401, 401, 503, 401, 401, 503, 401])
        XCTAssertTrue(try server.request("GET", "/_mock/requests?api=threads&limit=2").text.contains(
            "injected fault: 503 (error_every 3: request 6 of this rule), set through /_mock/faults"))
        // A rule set anew counts from the start.
        _ = try server.request("PUT", "/_mock/faults", body: #"{"error_every":2,"error_status":500}"#)
        XCTAssertEqual(try server.request("GET", "/api/threads").status, 401)
        XCTAssertEqual(try server.request("GET", "/api/threads").status, 500)
    }

    func testInvalidFaults() throws {
        for (body, detail) in [
            (#"{"error_rate":2}"#, "error_rate must be from 0 to 1"),
            (#"{"error_every":0}"#, "error_every must be a whole number from 1 to 1000000 (5: every fifth request fails)"),
            (#"{"error_every":5,"error_rate":0.2}"#, "error_rate and error_every do not go together: give one of them"),
            (#"{"latency_ms":[5,1]}"#, "latency_ms must satisfy 0 <= min <= max <= 600000"),
            (#"{"apis":["nope"]}"#, "unknown or not served api nope"),
            (#"{"speed":1}"#, "unknown field speed"),
            ("[1]", "rule 0: expected a JSON object"),
            ("{", "the body must be a JSON object or an array of them"),
        ] {
            let response = try server.request("PUT", "/_mock/faults", body: body)
            XCTAssertEqual(response.status, 400, body)
            XCTAssertEqual(response.text, #"{"error":"invalid_faults","detail":"\#(detail)"}"#)
        }
    }

    func testInjectedLatencyIsAtLeastWhatWasAsked() throws {
        _ = try server.request("PUT", "/_mock/faults", body: #"{"latency_ms":[250,250]}"#)
        let started = Date()
        XCTAssertEqual(try server.request("GET", "/api/threads").status, 401)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.25)
    }

    func testLatencySetting() throws {
        var settings = AppSettings()
        settings.latency = 200...300
        let slow = try TestServer(apis: ["threads"], settings: settings)
        let started = Date()
        XCTAssertEqual(try slow.request("GET", "/nothing").status, 404, "the common 404 is not delayed")
        XCTAssertEqual(try slow.request("POST", "/api/login", body: "email=a@a.com&password=test123").status, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.2)
    }
}

/// Who may use `/_mock`: loopback callers, or anyone with the admin token when one is set.
final class AdminAccessTests: XCTestCase {
    private func app(token: String? = nil, trustsLoopback: Bool = true) throws -> MockApp {
        var settings = AppSettings(adminToken: token)
        settings.trustsLoopback = trustsLoopback
        return try MockApp(apis: APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions()),
                           settings: settings)
    }

    func testOnlyLoopbackCallersByDefault() throws {
        let app = try app()
        for host in ["127.0.0.1", "127.9.8.7", "::1"] {
            XCTAssertEqual(app.respond("GET", "/_mock/health", from: host).status, 200, host)
        }
        let refused = app.respond("GET", "/_mock/health", from: "192.0.2.10")
        XCTAssertEqual(refused.status, 403)
        XCTAssertTrue(String(decoding: refused.body, as: UTF8.self).hasPrefix(#"{"error":"forbidden","detail":""#))
        XCTAssertEqual(app.respond("GET", "/api/threads", from: "192.0.2.10").status, 401, "course APIs are public")
    }

    func testTokenRequiredOfEveryoneWhenSet() throws {
        let app = try app(token: "s3cret")
        let missing = app.respond("GET", "/_mock/health", from: "127.0.0.1")
        XCTAssertEqual(missing.status, 401)
        XCTAssertTrue(String(decoding: missing.body, as: UTF8.self).hasPrefix(#"{"error":"unauthorized","detail":""#))
        XCTAssertEqual(app.respond("GET", "/_mock/health", headers: [("Authorization", "Bearer s3cret")], from: "192.0.2.10").status, 200)
        XCTAssertEqual(app.respond("GET", "/_mock/health", headers: [("X-Mock-Admin-Token", "s3cret")], from: "192.0.2.10").status, 200)
        XCTAssertEqual(app.respond("GET", "/_mock/health", headers: [("Authorization", "Bearer wrong")], from: "127.0.0.1").status, 401)
    }

    /// `--admin-require-token`: behind a proxy every caller is loopback, so loopback proves nothing.
    func testRequireTokenTrustsNoLoopbackCaller() throws {
        let closed = try app(trustsLoopback: false)
        let refused = closed.respond("GET", "/_mock/requests", from: "127.0.0.1")
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(String(decoding: refused.body, as: UTF8.self),
                       #"{"error":"forbidden","detail":"/_mock is closed: --admin-require-token is set and no --admin-token"}"#)
        let guarded = try app(token: "s3cret", trustsLoopback: false)
        XCTAssertEqual(guarded.respond("GET", "/_mock/requests", from: "127.0.0.1").status, 401)
        XCTAssertEqual(guarded.respond("GET", "/_mock/requests", headers: [("Authorization", "Bearer s3cret")], from: "127.0.0.1").status, 200)
    }
}

/// A browser on the server's machine is a loopback caller for every site it shows
/// (docs/admin.md#who-may-call-it): `/_mock` refuses what only a page of another site would send.
final class AdminBrowserGuardTests: XCTestCase {
    private static let refusedBody = #"{"error":"forbidden","detail":"/_mock serves loopback callers only at localhost, "#
        + #"an IP address or the --public-url host, and never for web pages of other sites; start the server with "#
        + #"--admin-token to allow others"}"#

    private func send(_ server: TestServer, _ method: String, _ target: String, _ headLines: [String]) throws -> ClientResponse {
        let client = try server.connect()
        let length = method == "POST" ? ["Content-Length: 0"] : []
        client.send(rawRequest(["\(method) \(target) HTTP/1.1"] + headLines + length + ["Connection: close"]))
        return try client.readResponse()
    }

    /// A form a page of another site submits (a "simple" request: no preflight).
    func testCrossSiteFormCannotReset() throws {
        let log = ConsoleLines()
        let server = try TestServer(apis: ["threads"], settings: AppSettings(log: RequestLog(format: .text, output: log.append)))
        let port = server.port
        let refused = try send(server, "POST", "/_mock/reset", ["Host: localhost:\(port)", "Origin: http://evil.example",
                                                               "Content-Type: text/plain"])
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.text, Self.refusedBody)
        XCTAssertNil(refused.headers["Access-Control-Allow-Origin"])
        XCTAssertTrue(try log.waitForLine(containing: "POST /_mock/reset 403")
            .hasSuffix("admin (Origin http://evil.example is not this server's: a web page of another site sent it)"))
        XCTAssertEqual(try send(server, "POST", "/_mock/reset", ["Host: localhost:\(port)", "Origin: null"]).status, 403)
        XCTAssertEqual(try send(server, "POST", "/_mock/reset", ["Host: localhost:\(port)", "Origin: http://localhost:1"]).status, 403,
                       "another port is another site")
        // The index page's own fetches, and tools that send no Origin.
        XCTAssertEqual(try send(server, "POST", "/_mock/reset", ["Host: localhost:\(port)", "Origin: http://localhost:\(port)"]).text,
                       #"{"reset":["threads"]}"#)
        XCTAssertEqual(try send(server, "GET", "/_mock/requests", ["Host: 127.0.0.1:\(port)", "Origin: http://127.0.0.1:\(port)"]).status, 200)
        XCTAssertEqual(try send(server, "POST", "/_mock/reset", ["Host: localhost:\(port)"]).status, 200)
    }

    /// A page whose name now resolves to 127.0.0.1 reads this port as its own origin.
    func testNameOfAnotherSiteCannotReadTheJournal() throws {
        let log = ConsoleLines()
        let server = try TestServer(apis: ["threads"], settings: AppSettings(log: RequestLog(format: .text, output: log.append)))
        let port = server.port
        for host in ["evil.example:\(port)", "evil.example", "localhost.evil.example:\(port)", "127.0.0.1.evil.example"] {
            let refused = try send(server, "GET", "/_mock/requests", ["Host: \(host)"])
            XCTAssertEqual(refused.status, 403, host)
            XCTAssertEqual(refused.text, Self.refusedBody, host)
        }
        XCTAssertTrue(try log.waitForLine(containing: "GET /_mock/requests 403").contains("(Host 127.0.0.1.evil.example is not "
            + "localhost, an IP address or the --public-url host: perhaps a web page's own name made to point at this machine (DNS rebinding))"))
        // Same-origin requests of such a page carry its own Origin: the Host still refuses them.
        XCTAssertEqual(try send(server, "POST", "/_mock/reset", ["Host: evil.example:\(port)", "Origin: http://evil.example:\(port)"]).status, 403)
        XCTAssertFalse(try send(server, "GET", "/", ["Host: evil.example:\(port)"]).text.contains("id=\"journal-rows\""),
                       "the index page shows such a page no requests either")
        for host in ["127.0.0.1:\(port)", "[::1]:\(port)", "localhost:\(port)", "LocalHost", "192.168.1.20:\(port)", "[fe80::1]"] {
            XCTAssertEqual(try send(server, "GET", "/_mock/requests", ["Host: \(host)"]).status, 200, host)
        }
        XCTAssertTrue(try send(server, "GET", "/", ["Host: localhost:\(port)"]).text.contains("id=\"journal-rows\""))
    }

    func testPublicURLHostAndOriginAreTheServersOwn() throws {
        var settings = AppSettings()
        settings.addresses = ServerAddresses(publicURL: try PublicURL(parsing: "https://mock.school.example"))
        let server = try TestServer(apis: ["threads"], settings: settings)
        XCTAssertEqual(try send(server, "POST", "/_mock/reset", ["Host: mock.school.example", "Origin: https://mock.school.example"]).status, 200)
        XCTAssertEqual(try send(server, "POST", "/_mock/reset", ["Host: mock.school.example", "Origin: http://evil.example"]).status, 403)
        XCTAssertEqual(try send(server, "GET", "/_mock/requests", ["Host: other.school.example"]).status, 403)
    }

    /// The token, not the address, decides: a page cannot send it (a custom header needs a preflight, refused).
    func testTokenHoldersAreNotAskedWhereTheyCameFrom() throws {
        let server = try TestServer(apis: ["threads"], settings: AppSettings(adminToken: "s3cret"))
        let headLines = ["Host: mock.school.example", "Origin: http://tool.example", "X-Mock-Admin-Token: s3cret"]
        XCTAssertEqual(try send(server, "GET", "/_mock/requests", headLines).status, 200)
        XCTAssertEqual(try send(server, "GET", "/_mock/requests", ["Host: evil.example"]).status, 401)
    }
}
