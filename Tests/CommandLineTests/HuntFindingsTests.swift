import Foundation
import TestSupport
import XCTest

/// Hostile-input findings of session 6 (/work/notes/hunt-findings-6.md): one client making the
/// server's memory grow far past what it sent or what the memory budget allows. Linux only: the
/// server's resident memory (and its peak) is read from /proc.
final class HuntFindingsTests: XCTestCase {
    #if os(Linux)
    /// `VmRSS` or `VmHWM` (the peak) of a child server, in MiB.
    private func memoryMiB(_ child: ChildProcess, _ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(child.process.processIdentifier)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try XCTUnwrap(Int(line.split(separator: " ")[1])) / 1024
    }
    #endif

    /// docs/admin.md: a journal entry keeps the first 4 KiB of the request body, "so an entry stays
    /// near 20 KiB at most". Each entry's `bodyPrefix` is `request.body.prefix(4096)`, an ArraySlice
    /// that keeps the whole body alive: 1000 entries of 16 MiB bodies hold 16 GiB.
    func testTheJournalKeepsOnlyAPrefixOfEachRequestBody() throws {
        #if os(Linux)
        let (child, port) = try ChildProcess.startServer(["--only", "threads", "--quiet"])
        let before = try memoryMiB(child, "VmRSS")
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 4 << 20)
        // 40 bodies of 4 MiB: 160 MiB if the journal keeps them whole, 160 KiB if it keeps prefixes.
        for _ in 0..<40 {
            let answer = try httpRequest(port: port, "POST", "/api/login", headers: [("Content-Type", "application/json")], body: body)
            XCTAssertEqual(answer.status, 400)
        }
        let journal = try httpRequest(port: port, "GET", "/_mock/requests?limit=1")
        XCTAssertTrue(journal.text.contains(#""request_bytes":4194304"#), String(journal.text.prefix(300)))
        XCTAssertLessThan(try memoryMiB(child, "VmRSS") - before, 64, "the journal kept whole request bodies")
        #else
        throw XCTSkip("resident memory is read from Linux's /proc")
        #endif
    }

    /// A missing field's reason (ErrorReason.missingField, MockKit/ErrorReason.swift) lists every field
    /// name the body had, repeats included, and the journal keeps the reason whole: a 16 MiB body
    /// of `a&` gives a 40 MB reason per entry, 1000 entries 40 GB (docs/admin.md: an entry "stays
    /// near 20 KiB at most"). 64 KiB here: a 160 KB reason.
    func testAMissingFieldReasonStaysShortWhateverTheBodyHeld() throws {
        let (_, port) = try ChildProcess.startServer(["--only", "threads", "--quiet"])
        let body = Array(String(repeating: "a&", count: 32 << 10).utf8)
        let answer = try httpRequest(port: port, "POST", "/api/login",
                                     headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body)
        XCTAssertEqual(answer.text, #"{"status":"error","message":"Email is required."}"#)
        let journal = try httpRequest(port: port, "GET", "/_mock/requests?limit=1")
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(journal.body)) as? [[String: Any]])
        let reason = try XCTUnwrap(entries.first?["reason"] as? String)
        XCTAssertTrue(reason.hasPrefix("required field `email` missing; the body had form fields `a`, `a`"), String(reason.prefix(200)))
        XCTAssertLessThan(reason.utf8.count, 4096, "the reason lists every field the body had")
    }

    /// The text console writes a reason's field names (ErrorReason, MockKit/ErrorReason.swift) and
    /// an https client's server_name (MockApp.tlsReason) as they came: a client's newline starts a
    /// console line of its own making, and its ESC bytes reach the terminal (`ESC[2J` clears it).
    func testAClientCannotWriteConsoleLinesOrTerminalEscapes() throws {
        let (child, port) = try ChildProcess.startServer(["--only", "threads"])
        let answer = try httpRequest(port: port, "POST", "/api/login", headers: [("Content-Type", "application/json")],
                                     body: Array(#"{"e\n12:00:00.000 127.0.0.1 GET /forged 200\u001b[2J":1}"#.utf8))
        XCTAssertEqual(answer.status, 400)
        XCTAssertTrue(child.waitForOutput("POST /api/login 400"), child.standardOutput)
        // The console line is written just after the answer: wait for the reason's end.
        XCTAssertTrue(child.waitForOutput("(Content-Type: application/json))"), child.standardOutput)
        let lines = child.standardOutput.split(separator: "\n")
        XCTAssertFalse(lines.contains { $0.hasPrefix("12:00:00.000 127.0.0.1 GET /forged") }, child.standardOutput)
        XCTAssertFalse(child.standardOutput.utf8.contains(0x1B), "an ESC byte reached the console")
    }

    /// The same form body at the default --max-body (16 MiB), with the server under 1 GiB of address
    /// space, the envelope scripts/attack-big-bodies.py runs it in: one request ends the process
    /// (an allocation fails: "Fatal error: failed to allocate …", or SIGSEGV in a debug build), where
    /// the memory budget promises that no number of clients can.
    func testOneFormBodyAtTheBodyLimitDoesNotEndTheServer() throws {
        #if os(Linux)
        let limit = ["/bin/sh", "-c", "ulimit -v 1048576 && exec \"$@\"", "sh"]
        let (child, port) = try ChildProcess.startServer(["--only", "wsuv", "--quiet", "--journal", "0"], wrapper: limit)
        let body = Array(String(repeating: "a&", count: (8 << 20) - 8).utf8)
        _ = try? httpRequest(port: port, "POST", "/cgi-bin/login.cgi",
                             headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body)
        let health = try? httpRequest(port: port, "GET", "/_mock/health")
        let crash = child.standardError.split(separator: "\n").first { $0.contains("Fatal error") || $0.contains("Crash") }
        XCTAssertEqual(health?.status, 200, "the server ended: \(crash ?? child.standardError.suffix(300))")
        #else
        throw XCTSkip("the address space limit is set with Linux's ulimit -v")
        #endif
    }

    /// A form body within --max-body, read by WSUV's CGIForm.pairs: every `a&` piece becomes an
    /// ArraySlice and an Array of its own, so 4 MiB of them peak at about 60 times the body, none
    /// of it counted by the memory budget (the event loop parsing it serves nobody meanwhile).
    func testAFormBodyOfManyPiecesDoesNotMultiplyInMemory() throws {
        #if os(Linux)
        let (child, port) = try ChildProcess.startServer(["--only", "wsuv", "--quiet", "--journal", "0"])
        let before = try memoryMiB(child, "VmHWM")
        let body = Array(String(repeating: "a&", count: 2 << 20).utf8)
        let answer = try httpRequest(port: port, "POST", "/cgi-bin/login.cgi",
                                     headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body)
        XCTAssertEqual(answer.status, 400)
        // The body itself, a copy or two of it, and no more.
        XCTAssertLessThan(try memoryMiB(child, "VmHWM") - before, 64, "a 4 MiB form body peaked far above its size")
        #else
        throw XCTSkip("peak memory is read from Linux's /proc")
        #endif
    }
}
