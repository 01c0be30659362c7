import Foundation
import MockApp
import MockHTTP
import TestSupport
import XCTest

/// The HTTP layer's own errors (a request it cannot read) keep their plain-text bodies and get a
/// reason in the console line and the journal (docs/admin.md#why-a-request-failed).
final class ParserReasonTests: XCTestCase {
    private let console = ConsoleLines()
    private var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer(apis: ["threads"], settings: AppSettings(log: RequestLog(format: .text, output: console.append))) {
            $0.headerTimeout = 1
        }
    }

    override func tearDown() {
        server = nil
    }

    /// Each with the method and path the console line names (`-` for a line that is no request line).
    func testEachRefusalKeepsItsBodyAndLogsItsReason() throws {
        let longTarget = "/api/threads?q=" + String(repeating: "a", count: 9000)
        let cookie = "Cookie: " + String(repeating: "c", count: 70_000) + "\r\n"
        let fields = (0..<300).map { "X-\($0): v\r\n" }.joined()
        let cases: [(raw: String, status: Int, body: String, reason: String, method: String, path: String)] = [
            ("GET \(longTarget) HTTP/1.1\r\nHost: x\r\n\r\n", 414, "Request line is longer than 8192 bytes.",
             "request line longer than 8 KiB (a long query string? send the data in a body)", "GET", String(longTarget.prefix(256)) + "…"),
            ("GET /api/threads HTTP/1.1\r\nHost: x\r\n\(cookie)\r\n", 431, "Request header block is larger than 65536 bytes.",
             "header section over 64 KiB (large cookies?)", "GET", "/api/threads"),
            ("GET /api/threads HTTP/1.1\r\nHost: x\r\n\(fields)\r\n", 431, "More than 256 header fields.",
             "more than 256 header fields", "GET", "/api/threads"),
            ("GET /api/threads HTTP/1.1\r\n\r\n", 400, "HTTP/1.1 request without a Host header field.",
             "Host header missing (HTTP/1.1 requires one)", "GET", "/api/threads"),
            ("GET /api/threads HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "More than one Host header field.",
             "two Host headers", "GET", "/api/threads"),
            ("POST /api/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "Invalid chunk size.",
             "bad chunk size (expected up to 15 hexadecimal digits)", "POST", "/api/login"),
            ("hello\r\n\r\n", 400, "Malformed request line.",
             "a malformed request line (expected METHOD /path HTTP/1.1, one space apart)", "-", "-"),
            ("GET /api/threads HTTP/2.0\r\nHost: x\r\n\r\n", 505, "HTTP version not supported: only HTTP/1.x is.",
             "an HTTP version other than 1.x", "GET", "/api/threads"),
        ]
        for refused in cases {
            try assertRefused(refused.raw, refused.status, refused.body, refused.reason, method: refused.method, path: refused.path)
        }
    }

    func testAHeadThatStopsComingTimesOut() throws {
        try assertRefused("GET /api/threads HTTP/1.1\r\nHost: x\r\n", 408, "Request head not received in time.",
                          "the request head did not arrive within 1 s of its first byte", method: "GET", path: "/api/threads")
    }

    /// Sends `raw` on a new connection; the answer is the HTTP layer's own plain text, the console
    /// line names the request as far as it was read and gives the reason, and so does the journal.
    private func assertRefused(_ raw: String, _ status: Int, _ body: String, _ reason: String, method: String, path: String,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let client = try server.connect()
        client.send(raw)
        let response = try client.readResponse()
        XCTAssertEqual(response.status, status, file: file, line: line)
        XCTAssertEqual(response.text, body + "\n", "the body is unchanged", file: file, line: line)
        let logged = try console.waitForLine(containing: "(\(reason))")
        XCTAssertTrue(logged.contains(" 127.0.0.1 \(method) \(path) \(status) "), logged, file: file, line: line)
        XCTAssertTrue(logged.hasSuffix(" - (\(reason))"), logged, file: file, line: line)
        let entry = try server.lastJournalEntry()
        XCTAssertEqual(entry["reason"]?.stringValue, reason, file: file, line: line)
        XCTAssertEqual(entry["status"]?.intValue, status, file: file, line: line)
        XCTAssertEqual(entry["method"]?.stringValue, method, file: file, line: line)
    }
}
