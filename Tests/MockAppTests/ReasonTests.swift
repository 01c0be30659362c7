import Foundation
import MockApp
import MockHTTP
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

    func testAPathFarFromEveryRouteHasNoHint() throws {
        XCTAssertEqual(try server.request("GET", "/favicon.ico").text, #"{"error":"not_found","path":"/favicon.ico"}"#)
        XCTAssertEqual(try reasonLogged(for: "/favicon.ico"), "no API serves this path")
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
        XCTAssertTrue(try journalEntry()["reason"] is NSNull)
    }

    // MARK: Helpers

    /// The text in parentheses at the end of the console line of the last request to `target`.
    private func reasonLogged(for target: String) throws -> String? {
        let line = try console.waitForLine(containing: " \(target) ")
        guard let open = line.range(of: " (") , line.hasSuffix(")") else { return nil }
        return String(line[open.upperBound..<line.index(before: line.endIndex)])
    }

    /// The journal's newest entry; the console line is written after the journal entry, so a test
    /// that has waited for the line finds the entry.
    private func journalEntry() throws -> [String: Any] {
        let journal = try server.request("GET", "/_mock/requests?limit=1")
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(journal.body)) as? [[String: Any]])
        return try XCTUnwrap(entries.first)
    }

    private func journalReason() throws -> String? {
        try journalEntry()["reason"] as? String
    }
}
