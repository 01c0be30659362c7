import Foundation
import MockHTTP
import TestSupport
import XCTest

/// What clients store counts against --memory-budget, half of which it may take; past it a write
/// is the API's own 503 and stores nothing, and a reset frees it (issue 29 item 7,
/// docs/reliability.md#memory-budget). Linux only: the peak is read from /proc.
final class StoredTextBudgetTests: XCTestCase {
    private let form = [("Content-Type", "application/x-www-form-urlencoded")]

    /// Threads signups of four 256 KiB fields under a 4 MiB budget: stored text may take 2 MiB, so
    /// the first one or two are stored and the rest refused. Before, all 20 were stored (and with
    /// 1 MB fields under 1 GiB of address space the 64th ended the server).
    func testSignupsPastTheStoredShareAreRefusedAndNotStored() throws {
        #if os(Linux)
        let (child, port) = try ChildProcess.startServer(["--only", "threads", "--quiet", "--journal", "0",
                                                          "--memory-budget", String(4 << 20)])
        let field = String(repeating: "f", count: 256 << 10)
        func signup(_ index: Int) throws -> ClientResponse {
            try httpRequest(port: port, "POST", "/api/signup", headers: form,
                            body: Array("email=big\(index)@example.com&password=\(field)&fname=\(field)&lname=\(field)".utf8))
        }
        let before = try peakMiB(child)
        let answers = try (0..<20).map(signup)
        let grown = try peakMiB(child) - before
        let stored = answers.filter { $0.status == 200 }.count
        XCTAssertTrue((1...2).contains(stored), "\(stored) signups of 768 KiB stored under a 2 MiB share")
        for refused in answers.dropFirst(stored) {
            XCTAssertEqual(refused.status, 503)
            XCTAssertEqual(refused.text, #"{"status":"error","message":"Service unavailable."}"#)
        }
        XCTAssertLessThan(grown, 24, "peak resident memory grew \(grown) MiB")
        let login = try httpRequest(port: port, "POST", "/api/login", headers: form,
                                    body: Array("email=big\(stored)@example.com&password=\(field)".utf8))
        XCTAssertEqual(login.status, 401, "a refused signup stored nothing")
        // A reset gives the stored share back.
        XCTAssertEqual(try httpRequest(port: port, "POST", "/_mock/reset/threads").status, 200)
        XCTAssertEqual(try signup(99).status, 200)
        #else
        throw XCTSkip("peak memory is read from Linux's /proc")
        #endif
    }

    private func peakMiB(_ child: ChildProcess) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(child.process.processIdentifier)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try XCTUnwrap(Int(line.split(separator: " ")[1])) / 1024
    }
}
