import Foundation
import MockHTTP
import TestSupport
import XCTest

/// Stopping the program (README.md#command-line): one Ctrl-C or SIGTERM drains for at most 5 s, a
/// second Ctrl-C stops at once (exit 130), a request cut off is logged, and the last line says so.
final class ShutdownTests: XCTestCase {
    /// A request whose answer is held back (`--latency 60000`), then Ctrl-C twice.
    func testASecondCtrlCStopsAtOnceAndLogsTheRequestItCutOff() throws {
        let (child, port) = try ChildProcess.startServer(["--only", "threads", "--latency", "60000"])
        let client = try BlockingClient(port: port, timeout: 30)
        // One write, so one read on the server: once the health answer (never held back) is here,
        // the request behind it was dispatched too, and its answer is being held back.
        client.send("GET /_mock/health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /api/threads HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)

        child.process.interrupt()
        XCTAssertTrue(child.waitForOutput("mock-backend: stopping (finishing requests in flight, at most 5 s; Ctrl-C again stops at once)\n"),
                      child.standardOutput)
        child.process.interrupt()
        XCTAssertEqual(child.waitForExit(), 130, child.standardOutput)
        XCTAssertTrue(client.isClosedByServer())
        XCTAssertTrue(child.standardOutput.contains("\nmock-backend: Ctrl-C again: stopping at once\n"), child.standardOutput)
        assertCutOff(child, "GET /api/threads", api: "threads", "its answer was still held back by --latency or a delay fault")
        assertLastLine(child, "mock-backend stopped at once after ", ": 1 request answered, 1 cut off")
    }

    /// SIGTERM (docker stop) with a body half sent and an answer dribbling out: both are cut off
    /// when the 5 s are over, and the program exits 0 with the stopped line last.
    func testOneSignalDrainsThenCutsOffWhatIsStillBusy() throws {
        let (child, port) = try ChildProcess.startServer(["--only", "threads"])
        XCTAssertEqual(try httpRequest(port: port, "PUT", "/_mock/faults",
                                       body: Array(#"{"slow_bytes_per_s":1,"routes":["GET /api/threads"]}"#.utf8)).status, 200)
        let slow = try BlockingClient(port: port, timeout: 30)
        slow.send("GET /api/threads HTTP/1.1\r\nHost: x\r\n\r\n")
        var received: [UInt8] = []
        while !received.starts(with: Array("HTTP/1.1 401".utf8)) || !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
            let bytes = slow.receiveOnce()
            XCTAssertFalse(bytes.isEmpty, "the head of the slow answer comes at once")
            if bytes.isEmpty { return }
            received += bytes
        }
        // The 100 Continue says the head was read; the body stops after its first chunk (which
        // the server takes in whole, so nothing of the request waits unread in its buffer).
        let halfSent = try BlockingClient(port: port, timeout: 30)
        halfSent.send("POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                      + "Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertEqual(try halfSent.readResponse().status, 100)
        halfSent.send("D\r\nemail=a@a.com\r\n")

        let signalled = Date()
        child.process.terminate()
        XCTAssertEqual(child.waitForExit(timeout: 30), 0, child.standardOutput)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(signalled), 5, "requests in flight get 5 s")
        XCTAssertTrue(child.standardOutput.contains(
            "\nmock-backend: stopping (finishing requests in flight, at most 5 s; SIGTERM again stops at once)\n"), child.standardOutput)
        assertCutOff(child, "GET /api/threads", api: "threads", "its answer was still being sent slowly by a slow_body fault")
        assertCutOff(child, "POST /api/login", api: "-", "its body was still arriving")
        // The fault's PUT (control surface) and the slow answer, logged when it began.
        assertLastLine(child, "mock-backend stopped after ", ": 2 requests answered, 2 cut off")
    }

    /// Nothing in flight: the drain ends at once, and so does the program.
    func testCtrlCWithNothingInFlightSaysItStopped() throws {
        let (child, port) = try ChildProcess.startServer(["--only", "otp"])
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/nothing").status, 404)
        XCTAssertTrue(child.waitForOutput(" GET /api/nothing 404 "))
        child.process.interrupt()
        XCTAssertEqual(child.waitForExit(), 0)
        assertLastLine(child, "mock-backend stopped after ", " s: 1 request answered, 0 cut off")
    }

    /// The console line of a request cut off: status `-`, no bytes, and why.
    private func assertCutOff(_ child: ChildProcess, _ request: String, api: String, _ cause: String,
                              file: StaticString = #filePath, line: UInt = #line) {
        let reason = " \(api) (cut off at shutdown: \(cause))"
        let found = child.standardOutput.split(separator: "\n").first { $0.hasSuffix(reason) }
        XCTAssertTrue(found?.contains(" 127.0.0.1 \(request) - 0B ") ?? false, child.standardOutput, file: file, line: line)
    }

    private func assertLastLine(_ child: ChildProcess, _ start: String, _ end: String,
                                file: StaticString = #filePath, line: UInt = #line) {
        let last = child.standardOutput.split(separator: "\n").last ?? ""
        XCTAssertTrue(last.hasPrefix(start) && last.hasSuffix(end), String(last), file: file, line: line)
    }
}
