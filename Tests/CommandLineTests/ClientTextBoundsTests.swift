import Foundation
import TestSupport
import XCTest

/// What a client sends and the server keeps about it for people (the journal, a reason, a console
/// line) stays small and cannot write lines or terminal escapes of its own, whatever was sent.
final class ClientTextBoundsTests: XCTestCase {
    #if os(Linux)
    /// `VmRSS` or `VmHWM` (the peak) of a child server, in MiB.
    private func memoryMiB(_ child: ChildProcess, _ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(child.process.processIdentifier)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try XCTUnwrap(Int(line.split(separator: " ")[1])) / 1024
    }
    #endif

    /// docs/admin.md: a journal entry keeps the first 4 KiB of the request body, so it stays near
    /// 20 KiB. A slice of the body would keep all of it alive: 1000 entries of 16 MiB bodies, 16 GiB.
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

    /// A missing field's reason names the fields the body had: the first 20, then how many more.
    /// Listing them all made a 16 MiB body of `a&` a 40 MB reason, kept in the journal and the console.
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
        // A form is read for its first 1000 pairs (FormDecoding.maxPairs), the reason's names too.
        XCTAssertTrue(reason.hasSuffix(" and 980 more (Content-Type: application/x-www-form-urlencoded)"), String(reason.suffix(200)))
        XCTAssertLessThan(reason.utf8.count, 4096, "the reason lists every field the body had")
    }

    /// A reason that repeats a value as sent (WSUV's `action`) is cut at 2 KiB, between characters,
    /// in the journal and on the console: a request line may carry 8 KiB of it.
    func testAReasonIsCutAt2KiBInTheJournalAndTheConsole() throws {
        let (child, port) = try ChildProcess.startServer(["--only", "wsuv"])
        let answer = try httpRequest(port: port, "GET", "/cgi-bin/login.cgi?username=a&password=b&action="
                                     + String(repeating: "%C3%A9", count: 1_200))
        XCTAssertEqual(answer.status, 400)
        // The longest run of whole characters within 2,048 bytes (the two-byte é never split).
        var kept = ""
        for character in "action must be login or logout, got `" + String(repeating: "é", count: 1_200) {
            guard kept.utf8.count + String(character).utf8.count <= 2_048 else { break }
            kept.append(character)
        }
        let journal = try httpRequest(port: port, "GET", "/_mock/requests?limit=1")
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(journal.body)) as? [[String: Any]])
        XCTAssertEqual(entries.first?["reason"] as? String, kept + "…")
        XCTAssertTrue(child.waitForOutput(" (\(kept)…)"), String(child.standardOutput.suffix(300)))
    }

    /// A reason's field names come from the client: a newline in one must not start a console line
    /// of the client's making, nor its ESC bytes reach the terminal (`ESC[2J` clears it).
    func testAClientCannotWriteConsoleLinesOrTerminalEscapes() throws {
        let (child, port) = try ChildProcess.startServer(["--only", "threads"])
        let answer = try httpRequest(port: port, "POST", "/api/login", headers: [("Content-Type", "application/json")],
                                     body: Array(#"{"e\n12:00:00.000 127.0.0.1 GET /forged 200\u001b[2J":1,"\u001b[2J\u009b":2}"#.utf8))
        XCTAssertEqual(answer.status, 400)
        XCTAssertTrue(child.waitForOutput("POST /api/login 400"), child.standardOutput)
        // The console line is written just after the answer: wait for the reason's end.
        XCTAssertTrue(child.waitForOutput("(Content-Type: application/json))"), child.standardOutput)
        let lines = child.standardOutput.split(separator: "\n")
        XCTAssertFalse(lines.contains { $0.hasPrefix("12:00:00.000 127.0.0.1 GET /forged") }, child.standardOutput)
        XCTAssertFalse(child.standardOutput.utf8.contains(0x1B), "an ESC byte reached the console")
        XCTAssertTrue(child.standardOutput.contains(#", `\u001B[2J\u009B` (Content-Type"#), "ESC and CSI shown as \\u001B, \\u009B")
        XCTAssertTrue(child.standardOutput.contains(#"fields `e\n12:00:00.000 127.0.0.1 GET /forged"#), "the newline shown as \\n")
    }
}
