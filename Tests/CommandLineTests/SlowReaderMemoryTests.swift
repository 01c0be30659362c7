import Foundation
import MockHTTP
import TestSupport
import XCTest

/// Answers waiting for clients that do not read them count against --memory-budget, and no answer
/// is built once a client address holds its share (issue 29 item 6; docs/reliability.md#memory-budget).
/// Linux only: the peak is read from /proc.
final class SlowReaderMemoryTests: XCTestCase {
    private let form = [("Content-Type", "application/x-www-form-urlencoded")]

    /// Ten WSUV tweets of 1 MiB make every get-tweets.cgi answer 10 MiB; 20 clients ask and read
    /// nothing (the kernel takes about 4 MiB of each answer). Each built its whole answer before,
    /// and under 1 GiB of address space 60 such clients with 20 tweets ended the server. Now one
    /// address gets answers until it holds half the budget (16 MiB here; the tweets are stored text, charged
    /// apart), then the script's own 503.
    func testAnswersNobodyReadsStayWithinTheBudget() throws {
        #if os(Linux)
        let (child, port) = try ChildProcess.startServer(["--only", "wsuv", "--quiet", "--journal", "0",
                                                          "--memory-budget", String(32 << 20)])
        let login = try httpRequest(port: port, "POST", "/cgi-bin/login.cgi", headers: form,
                                    body: Array("username=alice&password=wonderland".utf8))
        let token = try XCTUnwrap(login.text.split(separator: "\"").dropFirst(3).first)
        let tweet = String(repeating: "a", count: 1 << 20)
        for _ in 0..<10 {
            let added = try httpRequest(port: port, "POST", "/cgi-bin/add-tweet.cgi", headers: form,
                                        body: Array("username=alice&session_token=\(token)&tweet=\(tweet)".utf8))
            XCTAssertEqual(added.status, 200)
        }
        let before = try peakMiB(child)
        var readers = try (0..<20).map { _ in try BlockingClient(port: port, timeout: 120) }
        for reader in readers { reader.send("GET /cgi-bin/get-tweets.cgi HTTP/1.1\r\nHost: x\r\n\r\n") }
        // The first bytes of every answer: each request has been answered (or refused) by now.
        let heads = readers.map { String(decoding: $0.receiveOnce().prefix(200), as: UTF8.self) }
        let grown = try peakMiB(child) - before
        let refused = heads.filter { $0.hasPrefix("HTTP/1.1 503 Database Unavailable\r\n") }
        XCTAssertGreaterThanOrEqual(refused.count, 14, heads.map { String($0.prefix(40)) }.joined(separator: " | "))
        XCTAssertEqual(refused.count + heads.filter { $0.hasPrefix("HTTP/1.1 200 OK\r\n") }.count, 20)
        XCTAssertTrue(refused.allSatisfy { $0.contains("\r\nRetry-After: 2\r\n") && $0.contains("\r\nContent-Length: 0\r\n") },
                      refused.first ?? "")
        XCTAssertLessThan(grown, 100, "peak resident memory grew \(grown) MiB for 20 answers of 10 MiB nobody reads")
        // Once the readers are gone their share is free again.
        readers.removeAll()
        var answer: ClientResponse?
        for _ in 0..<100 {
            answer = try httpRequest(port: port, "GET", "/cgi-bin/get-tweets.cgi")
            if answer?.status == 200 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(answer?.status, 200)
        XCTAssertGreaterThan(answer?.body.count ?? 0, 10 << 20)
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
