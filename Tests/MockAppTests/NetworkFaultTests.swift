import Foundation
import MockHTTP
import MockApp
import MockKit
import TestSupport
import XCTest

/// Faults per route and per connection (docs/admin.md#faults-and-latency), as a client's socket sees them.
final class NetworkFaultTests: XCTestCase {
    private var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer(apis: ["threads"])
    }

    override func tearDown() {
        server = nil
    }

    private func setFaults(_ body: String) throws {
        let response = try server.request("PUT", "/_mock/faults", body: body)
        XCTAssertEqual(response.status, 200, response.text)
    }

    /// Sends one request on a new connection and reads until the server ends the stream.
    private func exchange(_ method: String, _ target: String, body: String = "") throws -> (bytes: [UInt8], end: BlockingClient.StreamEnd) {
        let client = try server.connect(timeout: 5)
        client.send("\(method) \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return client.readUntilEnd()
    }

    private static let login = "email=a@a.com&password=test123"

    func testResetBeforeAnsweringOnlyOnTheNamedRoute() throws {
        try setFaults(#"{"reset_rate":1,"routes":["POST /api/login"]}"#)
        let reset = try exchange("POST", "/api/login", body: Self.login)
        XCTAssertEqual(reset.end, .reset, "the client's read fails with ECONNRESET")
        XCTAssertEqual(reset.bytes, [])
        let entry = try server.lastJournalEntry()
        XCTAssertEqual(entry["status"], .null)
        XCTAssertEqual(entry["reason"]?.stringValue, "injected fault: connection reset before the answer (reset_rate 1) on POST /api/login, set through /_mock/faults (DELETE /_mock/faults clears it)")
        XCTAssertEqual(try server.request("GET", "/api/threads").status, 401, "other routes answer as usual")
        XCTAssertEqual(try server.request("POST", "/api/signup", body: "x=1").status, 400)
    }

    func testCloseWithNoAnswer() throws {
        try setFaults(#"{"close_rate":1,"apis":["threads"]}"#)
        let closed = try exchange("GET", "/api/threads")
        XCTAssertEqual(closed.end, .endOfStream)
        XCTAssertEqual(closed.bytes, [])
        XCTAssertEqual(try server.lastJournalEntry()["reason"]?.stringValue, "injected fault: connection closed with no answer (close_rate 1), set through /_mock/faults (DELETE /_mock/faults clears it)")
        XCTAssertEqual(try server.request("GET", "/_mock/health").status, 200, "faults never touch the control surface")
    }

    func testTruncatedBodyIsShorterThanItsContentLength() throws {
        let token = String(try server.request("POST", "/api/login", body: Self.login).text.split(separator: "\"")[7])
        let whole = try server.request("GET", "/api/threads", headers: [("Authorization", "Bearer \(token)")])
        try setFaults(#"{"truncate_rate":1,"routes":["* /api/threads"]}"#)
        let client = try server.connect(timeout: 5)
        client.send("GET /api/threads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n")
        let cut = client.readUntilEnd()
        XCTAssertEqual(cut.end, .endOfStream)
        let text = String(decoding: cut.bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        XCTAssertEqual(parts.count, 2)
        XCTAssertTrue(parts[0].hasPrefix("HTTP/1.1 200 OK\r\n"), parts[0])
        XCTAssertTrue((parts[0] + "\r\n").contains("\r\nContent-Length: \(whole.body.count)\r\n"), parts[0].debugDescription)
        XCTAssertEqual(Array(parts[1].utf8), Array(whole.body.prefix(whole.body.count / 2)))
        XCTAssertEqual(try server.lastJournalEntry()["reason"]?.stringValue, "injected fault: answer cut short (truncate_rate 1) on * /api/threads, set through /_mock/faults (DELETE /_mock/faults clears it)")
    }

    func testSlowBodyArrivesWholeAtTheAskedPace() throws {
        let whole = try server.request("POST", "/api/login", body: Self.login)
        try setFaults(#"{"slow_bytes_per_s":200,"routes":["POST /api/login"]}"#)
        let started = Date()
        let client = try server.connect(timeout: 10)
        client.send("POST /api/login HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(Self.login.utf8.count)\r\n\r\n\(Self.login)")
        var pieces: [[UInt8]] = []
        while case let piece = client.receiveOnce(), !piece.isEmpty { pieces.append(piece) }
        let elapsed = Date().timeIntervalSince(started)
        let text = String(decoding: pieces.joined(), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        XCTAssertEqual(text.components(separatedBy: "\r\n\r\n").last?.utf8.count, whole.body.count)
        XCTAssertGreaterThan(pieces.count, 3, "the body comes in pieces, not in one delayed write")
        XCTAssertGreaterThanOrEqual(elapsed, Double(whole.body.count) / 200)
        XCTAssertEqual(try server.lastJournalEntry()["reason"]?.stringValue, "injected fault: body sent at 200 bytes/s (slow_rate 1) on POST /api/login, set through /_mock/faults (DELETE /_mock/faults clears it)")
    }

    func testFirstRuleThatAppliesWins() throws {
        let set = try server.request("PUT", "/_mock/faults", body: #"[{"error_status":500,"routes":["GET /api/messages/{thread_id}"]},{"close_rate":1}]"#)
        XCTAssertEqual(set.text, #"[{"error_rate":1,"error_status":500,"routes":["GET /api/messages/{thread_id}"]},{"close_rate":1}]"#)
        XCTAssertEqual(try server.request("GET", "/_mock/faults").text, set.text)
        let failed = try server.request("GET", "/api/messages/1")
        XCTAssertEqual(failed.status, 500)
        XCTAssertEqual(failed.text, #"{"status":"error","message":"Service unavailable."}"#)
        XCTAssertEqual(try exchange("GET", "/api/messages/1/x").end, .endOfStream, "one segment more: the second rule")
        XCTAssertEqual(try exchange("GET", "/api/threads").bytes, [])
    }

    func testInvalidRoutes() throws {
        for (body, detail) in [
            (#"{"routes":["/api/threads"]}"#, #"routes: /api/threads is not METHOD /path (e.g. \"GET /api/thread/{id}\" or \"* /login\")"#),
            (#"{"routes":[]}"#, #"routes must be an array of \"METHOD /path\" strings"#),
            (#"[{"reset_rate":0.5},{"slow_rate":-1}]"#, "rule 1: slow_rate must be from 0 to 1"),
            (#"{"slow_bytes_per_s":0}"#, "slow_bytes_per_s must be a whole number of bytes per second, at least 1"),
        ] {
            let response = try server.request("PUT", "/_mock/faults", body: body)
            XCTAssertEqual(response.status, 400, body)
            XCTAssertEqual(response.text, #"{"error":"invalid_faults","detail":"\#(detail)"}"#)
        }
    }
}
