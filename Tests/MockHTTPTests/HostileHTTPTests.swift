import Foundation
import MockHTTP
import TestSupport
import XCTest

/// Attacks on the HTTP layer over real sockets: smuggling, injection, absurd sizes, slow and
/// greedy clients. Every case gets a clear 4xx/5xx from the HTTP layer (or a dropped connection),
/// and the next normal request is still served.
final class HostileHTTPTests: XCTestCase, EchoServerTests {
    var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer(responder: EchoResponder()) { $0.limits.maxBody = 1024 }
    }

    override func tearDown() {
        server = nil
    }

    private func post(_ target: String, _ headers: String, _ body: String = "") -> String {
        "POST \(target) HTTP/1.1\r\nHost: test\r\n\(headers)\r\n\(body)"
    }

    private static let next = "GET /next HTTP/1.1\r\nHost: test\r\n\r\n"

    /// An accepted request must frame exactly as expected: the pipelined request behind it is
    /// answered on its own, so nothing was smuggled in either direction.
    private func assertFramed(_ raw: String, echo: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let client = try server.connect()
        client.send(raw + Self.next)
        XCTAssertEqual(try client.readResponse().text, echo, file: file, line: line)
        XCTAssertEqual(try client.readResponse().text, "GET /next|0|", file: file, line: line)
    }

    // MARK: Smuggling

    func testTransferEncodingObfuscationsThatAreStillChunked() throws {
        let chunks = "3\r\nabc\r\n0\r\n\r\n"
        // Surrounding whitespace is not part of the value (README), so these are plain chunked.
        try assertFramed(post("/te", "Transfer-Encoding: chunked \r\n", chunks), echo: "POST /te|3|abc")
        try assertFramed(post("/te", "Transfer-Encoding:\tchunked\r\n", chunks), echo: "POST /te|3|abc")
        try assertFramed(post("/te", "Transfer-Encoding:chunked\r\n", chunks), echo: "POST /te|3|abc")
        try assertFramed(post("/te", "TRANSFER-ENCODING: CHUNKED\r\n", chunks), echo: "POST /te|3|abc")
    }

    func testTransferEncodingObfuscationsThatAreRefused() throws {
        let chunks = "3\r\nabc\r\n0\r\n\r\n"
        for value in ["xchunked", "chunkedx", "chunked, identity", "identity", "identity, chunked", "gzip",
                      "\"chunked\"", "chunked;q=1", "chunk ed", ""] {
            try assertRejected(post("/te", "Transfer-Encoding: \(value)\r\n", chunks), status: 501)
        }
        // Two fields form a list, even when both say chunked.
        try assertRejected(post("/te", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", chunks), status: 501)
        try assertRejected(post("/te", "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n", chunks), status: 501)
        // Control characters are not whitespace.
        try assertRejected(post("/te", "Transfer-Encoding: chunked\u{0B}\r\n", chunks), status: 400)
        try assertRejected(post("/te", "Transfer-Encoding: \u{0C}chunked\r\n", chunks), status: 400)
    }

    func testHeaderNamesThatOnlyLookLikeTransferEncoding() throws {
        // Not a framing header: the request has no body and the chunk bytes are the next "request".
        let client = try server.connect()
        client.send(post("/u", "Transfer_Encoding: chunked\r\n"))
        XCTAssertEqual(try client.readResponse().text, "POST /u|0|")
        // A space before the colon or a leading space (folding) is malformed.
        try assertRejected(post("/te", "Transfer-Encoding : chunked\r\n", "0\r\n\r\n"), status: 400)
        try assertRejected("POST /te HTTP/1.1\r\nHost: test\r\n Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400)
        try assertRejected(post("/te", "X: y\r\n Transfer-Encoding: chunked\r\n", "0\r\n\r\n"), status: 400)
        try assertStillServing()
    }

    func testContentLengthTogetherWithAnyTransferEncoding() throws {
        for encoding in ["chunked", "identity", "xchunked", "chunked "] {
            try assertRejected(post("/s", "Content-Length: 4\r\nTransfer-Encoding: \(encoding)\r\n", "0\r\n\r\n"), status: 400)
            try assertRejected(post("/s", "Transfer-Encoding: \(encoding)\r\nContent-Length: 4\r\n", "0\r\n\r\n"), status: 400)
        }
    }

    func testMalformedContentLengths() throws {
        for value in ["1 2", "3, 3", "3,3", "+3", "-3", "-0", "0x3", "3.0", "3e0", "three", "", "\u{FF13}",
                      "١٢", "18446744073709551619", "3 ;", "3\u{0B}"] {
            let status = value == "18446744073709551619" ? 413 : 400
            try assertRejected(post("/cl", "Content-Length: \(value)\r\n", "abc"), status: status)
        }
        try assertRejected(post("/cl", "Content-Length: 3\r\nContent-Length: 4\r\n", "abcd"), status: 400)
        try assertRejected(post("/cl", "Content-Length: 3\r\ncontent-length: 3\r\n", "abc"), status: 400)
    }

    func testContentLengthsThatAreFine() throws {
        // Optional whitespace around the value and leading zeros do not change the number.
        try assertFramed(post("/cl", "Content-Length:  3 \r\n", "abc"), echo: "POST /cl|3|abc")
        try assertFramed(post("/cl", "Content-Length:\t3\t\r\n", "abc"), echo: "POST /cl|3|abc")
        try assertFramed(post("/cl", "Content-Length: 0003\r\n", "abc"), echo: "POST /cl|3|abc")
        try assertFramed(post("/cl", "Content-Length: 0\r\n"), echo: "POST /cl|0|")
    }

    // MARK: RFC 9112 requirements

    func testHostIsRequiredExactlyOnceInHTTP11() throws {
        try assertRejected("GET /nohost HTTP/1.1\r\n\r\n", status: 400)
        try assertRejected("GET /two HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", status: 400)
        try assertRejected("GET /two HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", status: 400)
        try assertRejected("GET /two HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", status: 400)
        // HTTP/1.0 had no Host requirement.
        let old = try server.connect()
        old.send("GET /old HTTP/1.0\r\n\r\n")
        XCTAssertEqual(try old.readResponse().text, "GET /old|0|")
    }

    func testHTTP10WithAChunkedBodyIsAnsweredThenClosed() throws {
        let client = try server.connect()
        client.send("POST /c HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            + "GET /next HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.text, "POST /c|3|abc")
        XCTAssertEqual(response.headers["Connection"], "close")
        XCTAssertTrue(client.isClosedByServer(), "the request behind it is not read")
        XCTAssertEqual(client.readToEnd(), [])
    }

    func testAbsoluteFormTargetIsServedAsItsPath() throws {
        try assertFramed("GET http://example.com/a/b?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n", echo: "GET /a/b?x=1|0|")
        try assertFramed("GET HTTPS://example.com:8080 HTTP/1.1\r\nHost: example.com\r\n\r\n", echo: "GET /|0|")
        try assertFramed("GET http://example.com?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n", echo: "GET /?q=1|0|")
        try assertRejected("GET http:///a HTTP/1.1\r\nHost: example.com\r\n\r\n", status: 400)
    }

    func testLaterHTTP1MinorVersionsAreServedAs11() throws {
        let client = try server.connect()
        client.send("GET /v2 HTTP/1.2\r\nHost: t\r\n\r\nGET /v9 HTTP/1.9\r\nHost: t\r\n\r\n")
        for path in ["/v2", "/v9"] {
            let response = try client.readResponse()
            XCTAssertEqual(response.text, "GET \(path)|0|")
            XCTAssertNil(response.headers["Connection"], "kept alive as HTTP/1.1")
        }
        try assertRejected("GET /v HTTP/1.2\r\n\r\n", status: 400)
        for version in ["HTTP/2.0", "HTTP/0.9", "HTTP/3.1"] {
            try assertRejected("GET /v \(version)\r\nHost: t\r\n\r\n", status: 505)
        }
    }

    func testTrailerLinesMustBeFields() throws {
        for trailer in ["NoColon", ": empty name", "Bad Name: v", " X: folded"] {
            try assertRejected(post("/t", "Transfer-Encoding: chunked\r\n", "0\r\n\(trailer)\r\n\r\n"), status: 400)
        }
        try assertFramed(post("/t", "Transfer-Encoding: chunked\r\n", "1\r\nz\r\n0\r\nX-Sum:\r\n\r\n"), echo: "POST /t|1|z")
    }

    // MARK: Injection in the head

    func testControlBytesAndFoldingInTheHead() throws {
        try assertRejected(post("/h", "X-A: one\rX-B: two\r\n"), status: 400)
        try assertRejected(post("/h", "X-A: one\nX-B: two\r\n"), status: 400)
        try assertRejected(post("/h", "X-A: one\u{0}two\r\n"), status: 400)
        try assertRejected(post("/h", "X-A: one\u{1}two\r\n"), status: 400)
        try assertRejected(post("/h", "X-A: one\u{7F}\r\n"), status: 400)
        try assertRejected(post("/h", "X-A: one\r\n\ttwo\r\n"), status: 400)
        try assertRejected(post("/h", "X-\u{0}A: one\r\n"), status: 400)
        try assertRejected(post("/h", "X-Ä: one\r\n"), status: 400)
        try assertRejected(post("/h", ": empty name\r\n"), status: 400)
        try assertRejected("GET /a\r\nX-Injected: 1 HTTP/1.1\r\nHost: test\r\n\r\n", status: 400)
        try assertRejected("GET /a\u{0}b HTTP/1.1\r\nHost: test\r\n\r\n", status: 400)
        try assertRejected("GET /a b HTTP/1.1\r\nHost: test\r\n\r\n", status: 400)
        try assertRejected("GET\t/a HTTP/1.1\r\nHost: test\r\n\r\n", status: 400)
        try assertRejected("G(T /a HTTP/1.1\r\nHost: test\r\n\r\n", status: 400)
        try assertRejected("GET /a HTTP/1.1 \r\n\r\n", status: 400)
        try assertRejected("GET /a http/1.1\r\n\r\n", status: 400)
        try assertRejected("GET /a HTTP/9.9\r\n\r\n", status: 505)
    }

    func testObsTextInAHeaderValueIsKept() throws {
        // RFC 9110 allows bytes 0x80–0xFF in values; they are kept, not a reason to refuse.
        let client = try server.connect()
        client.send(Array("GET /o HTTP/1.1\r\nHost: test\r\nX-Name: caf".utf8) + [0xC3, 0xA9, 0xFF] + Array("\r\n\r\n".utf8))
        XCTAssertEqual(try client.readResponse().text, "GET /o|0|")
    }

    // MARK: Bytes that are not UTF-8

    func testInvalidUTF8InTheTargetAndTheBody() throws {
        try assertRejected(Array("GET /a".utf8) + [0xFF, 0xFE] + Array(" HTTP/1.1\r\nHost: test\r\n\r\n".utf8), status: 400)
        try assertRejected(Array("GET /".utf8) + [0xC0, 0xAF] + Array(" HTTP/1.1\r\nHost: test\r\n\r\n".utf8), status: 400)
        // Percent-escaped, the same bytes are the application's business.
        try assertFramed("GET /a%FF%FE HTTP/1.1\r\nHost: test\r\n\r\n", echo: "GET /a%FF%FE|0|")
        let client = try server.connect()
        client.send(Array(post("/b", "Content-Length: 4\r\n").utf8) + [0xFF, 0x00, 0xC3, 0x28])
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.text.hasPrefix("POST /b|4|"))
    }

    // MARK: Absurd sizes and counts

    func testRequestLineAndHeaderLimitsAreExact() throws {
        let path = "/" + String(repeating: "a", count: 8192 - "GET / HTTP/1.1".count)
        try assertFramed("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n", echo: "GET \(path)|0|")
        try assertRejected("GET \(path)a HTTP/1.1\r\nHost: test\r\n\r\n", status: 414)
        let fields = (1..<256).map { "X-\($0): v\r\n" }.joined()  // 256 with Host
        try assertFramed("GET /f HTTP/1.1\r\nHost: test\r\n\(fields)\r\n", echo: "GET /f|0|")
        try assertRejected("GET /f HTTP/1.1\r\nHost: test\r\n\(fields)X-Last: v\r\n\r\n", status: 431)
        try assertRejected("GET /f HTTP/1.1\r\nHost: test\r\n" + String(repeating: "X: y\r\n", count: 100_000) + "\r\n", status: 431)
        try assertRejected("GET /f HTTP/1.1\r\nHost: test\r\nX: " + String(repeating: "v", count: 1 << 20) + "\r\n\r\n", status: 431)
    }

    /// Regression: a request line of exactly the limit whose LF came in a later read got 414.
    func testRequestLineAtTheLimitSplitBeforeItsLineFeed() throws {
        let path = "/" + String(repeating: "b", count: 8192 - "GET / HTTP/1.1".count)
        let client = try server.connect()
        client.send("GET \(path) HTTP/1.1\r")
        Thread.sleep(forTimeInterval: 0.2)
        client.send("\nHost: test\r\n\r\n")
        XCTAssertEqual(try client.readResponse().text, "GET \(path)|0|")
    }

    func testBodyLimitByLengthAndByChunks() throws {
        let full = String(repeating: "x", count: 1024)
        try assertFramed(post("/big", "Content-Length: 1024\r\n", full), echo: "POST /big|1024|" + full)
        try assertRejected(post("/big", "Content-Length: 1025\r\n", full + "x"), status: 413)
        try assertRejected(post("/big", "Content-Length: 99999999999999999999999999999999\r\n"), status: 413)
        let overChunks = String(repeating: "200\r\n" + String(repeating: "y", count: 512) + "\r\n", count: 2) + "1\r\nz\r\n0\r\n\r\n"
        try assertRejected(post("/big", "Transfer-Encoding: chunked\r\n", overChunks), status: 413)
        try assertRejected(post("/big", "Transfer-Encoding: chunked\r\n", "7fffffffffffff\r\n"), status: 413)
        try assertRejected(post("/big", "Transfer-Encoding: chunked\r\n", "ffffffffffffffffff\r\n"), status: 400)
    }

    func testManyTinyChunksAndChunkSyntax() throws {
        let tiny = String(repeating: "1\r\nq\r\n", count: 1000) + "0\r\n\r\n"
        try assertFramed(post("/tiny", "Transfer-Encoding: chunked\r\n", tiny), echo: "POST /tiny|1000|" + String(repeating: "q", count: 1000))
        try assertFramed(post("/c", "Transfer-Encoding: chunked\r\n", "3 \r\nabc\r\n0\r\n\r\n"), echo: "POST /c|3|abc")
        for bad in ["-3\r\nabc\r\n0\r\n\r\n", "+3\r\nabc\r\n0\r\n\r\n", "0x3\r\nabc\r\n0\r\n\r\n", " 3\r\nabc\r\n0\r\n\r\n",
                    "\r\n3\r\nabc\r\n0\r\n\r\n", "3\r\nabcd\r\n0\r\n\r\n", "3\r\nab\r\n\r\n0\r\n\r\n",
                    "3;" + String(repeating: "e", count: 2000) + "\r\nabc\r\n0\r\n\r\n"] {
            try assertRejected(post("/c", "Transfer-Encoding: chunked\r\n", bad), status: 400)
        }
    }

    /// Regression: a bare LF or a NUL in a chunk line left the request waiting for more bytes
    /// until the body timeout instead of being refused.
    func testBareLineFeedOrNulInChunkLinesIsRefusedAtOnce() throws {
        try assertRejected(post("/c", "Transfer-Encoding: chunked\r\n", "3\nabc\r\n0\r\n\r\n"), status: 400)
        try assertRejected(post("/c", "Transfer-Encoding: chunked\r\n", "3\u{0}\r\nabc\r\n0\r\n\r\n"), status: 400)
        try assertRejected(post("/c", "Transfer-Encoding: chunked\r\n", "3\rabc\r\n0\r\n\r\n"), status: 400)
        try assertRejected(post("/c", "Transfer-Encoding: chunked\r\n", "0\r\nX: a\nY: b\r\n\r\n"), status: 400)
    }

    /// Regression: the trailer section was limited per line only; now the whole section counts.
    func testTrailerSectionIsLimitedAsAWhole() throws {
        let line = "X-T: " + String(repeating: "t", count: 400) + "\r\n"
        try assertFramed(post("/t", "Transfer-Encoding: chunked\r\n", "0\r\n" + line + "\r\n"), echo: "POST /t|0|")
        try assertRejected(post("/t", "Transfer-Encoding: chunked\r\n", "0\r\n" + String(repeating: line, count: 200) + "\r\n"),
                           status: 431)
        try assertRejected(post("/t", "Transfer-Encoding: chunked\r\n", "0\r\n" + String(repeating: "X: y\r\n", count: 300) + "\r\n"),
                           status: 431)
    }

    func testBlankLinesBeforeARequestAreSkipped() throws {
        try assertFramed(String(repeating: "\r\n", count: 100_000) + "GET /late HTTP/1.1\r\nHost: test\r\n\r\n", echo: "GET /late|0|")
    }

    // MARK: Slow, half-closed and greedy clients

    func testAThousandSlowlorisConnectionsDoNotStopOthers() throws {
        // A generous head timeout, so only the server's fairness is tested, not its clock.
        server = try TestServer(responder: EchoResponder()) {
            $0.headerTimeout = 300
            $0.maxConnectionsPerAddress = 2000
        }
        let slow = try (0..<1000).map { index -> BlockingClient in
            let client = try server.connect()
            client.send("GET /slow\(index) HTTP/1.1\r\nHost: test\r\nX-Trickle: ")
            return client
        }
        for client in slow { client.send("a") }
        // The server is still answering everyone else while those heads are open.
        for index in 0..<20 {
            let client = try server.connect()
            client.send("GET /fresh\(index) HTTP/1.1\r\nHost: test\r\n\r\n")
            XCTAssertEqual(try client.readResponse().text, "GET /fresh\(index)|0|")
        }
        // And the slow ones are still parsed correctly once they finish.
        for (index, client) in slow.prefix(10).enumerated() {
            client.send("b\r\n\r\n")
            XCTAssertEqual(try client.readResponse().text, "GET /slow\(index)|0|")
        }
    }

    func testASilentConnectionKeepsItsSlotOnlyUntilTheHeaderDeadline() throws {
        server = try TestServer(responder: EchoResponder()) { $0.headerTimeout = 1 }
        let silent = try server.connect()
        let served = try server.connect()
        served.send("GET /once HTTP/1.1\r\nHost: test\r\n\r\n")
        XCTAssertEqual(try served.readResponse().text, "GET /once|0|")
        XCTAssertTrue(silent.isClosedByServer(), "never sent a byte: closed at the header deadline")
        // A connection that has been served is idle, not silent: it waits for the idle timeout.
        served.send("GET /twice HTTP/1.1\r\nHost: test\r\n\r\n")
        XCTAssertEqual(try served.readResponse().text, "GET /twice|0|")
    }

    func testABodyTrickledBelowTheMinimumRateIsDropped() throws {
        server = try TestServer(responder: EchoResponder()) {
            $0.limits.maxBody = 100_000
            $0.slowBodyGrace = 2
            $0.minBodyBytesPerSecond = 1000
        }
        // One byte every 0.2 s: it never stalls for the body timeout, but it is far below the rate.
        let slow = try server.connect(timeout: 0.2)
        slow.send(post("/slow", "Content-Length: 100000\r\n"))
        var closed = false
        for _ in 0..<75 where !closed {
            slow.send("x")
            closed = slow.isClosedByServer()
        }
        XCTAssertTrue(closed, "closed once the grace period was over")
        // A body at a modest rate (3 KB/s, over 3 s) is read whole.
        let steady = try server.connect()
        steady.send(post("/steady", "Content-Length: 9000\r\n"))
        for _ in 0..<9 {
            Thread.sleep(forTimeInterval: 0.33)
            steady.send(String(repeating: "y", count: 1000))
        }
        XCTAssertEqual(try steady.readResponse().text, "POST /steady|9000|" + String(repeating: "y", count: 9000))
    }

    func testOneAddressHoldsAtMostItsShareOfConnections() throws {
        server = try TestServer(responder: EchoResponder()) { $0.maxConnectionsPerAddress = 4 }
        var held = try (0..<4).map { _ in try server.connect() }
        for client in held {
            client.send("GET /held HTTP/1.1\r\nHost: test\r\n\r\n")
            XCTAssertEqual(try client.readResponse().status, 200)
        }
        let fifth = try server.connect()
        fifth.send("GET /fifth HTTP/1.1\r\nHost: test\r\n\r\n")
        XCTAssertThrowsError(try fifth.readResponse(), "closed unanswered: the address holds its share")
        held.removeLast()
        // Once the server has seen that close, the address may connect again.
        var answer: ClientResponse?
        for _ in 0..<50 where answer == nil {
            let again = try server.connect()
            again.send("GET /again HTTP/1.1\r\nHost: test\r\n\r\n")
            answer = try? again.readResponse()
            if answer == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        XCTAssertEqual(answer?.text, "GET /again|0|")
    }

    // MARK: Memory budget

    func testBodiesOverTheMemoryBudgetAreRefusedWith503WhileSmallRequestsAreServed() throws {
        let size = 3 << 20
        server = try TestServer(responder: EchoResponder()) {
            $0.limits.maxBody = 8 << 20
            $0.memoryBudget = 8 << 20
            $0.memoryBudgetPerAddress = 8 << 20  // every client here is 127.0.0.1
        }
        // The first body holds 3 MiB of the budget while it arrives slowly (and will need as much
        // again to be parsed)...
        let first = try server.connect()
        first.send(post("/first", "Content-Length: \(size)\r\n", "abc"))
        try waitUntil { server.server.memoryInUse >= size }
        // ...so the next large ones are refused from their heads, body unread, the connection closed.
        for index in 0..<3 {
            let client = try server.connect()
            client.send(post("/more\(index)", "Content-Length: \(2 * size)\r\n", "x"))
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 503)
            XCTAssertEqual(response.headers["Retry-After"], "2")
            XCTAssertEqual(response.text, "Too many request bodies are in memory at once; retry shortly.\n")
            XCTAssertTrue(client.isClosedByServer())
        }
        // Small requests and small bodies from others are served meanwhile.
        try assertStillServing()
        XCTAssertEqual(try exchange(post("/small", "Content-Length: 5\r\n", "hello")).text, "POST /small|5|hello")
        // The first body is read whole and answered; what it held is given back.
        first.send(String(repeating: "a", count: size - 3))
        XCTAssertEqual(try first.readResponse().body.count, "POST /first|\(size)|".utf8.count + size)
        try waitUntil { server.server.memoryInUse < size }
        let later = try exchange(post("/later", "Content-Length: \(size)\r\n", String(repeating: "b", count: size)))
        XCTAssertEqual(later.status, 200)
    }

    func testOneAddressHoldsAtMostHalfTheMemoryBudgetInBodies() throws {
        let size = 3 << 19
        server = try TestServer(responder: EchoResponder()) {
            $0.limits.maxBody = 8 << 20
            $0.memoryBudget = 8 << 20
        }
        let first = try server.connect()
        first.send(post("/first", "Content-Length: \(size)\r\n", "abc"))
        try waitUntil { server.server.memoryInUse >= size }
        // The budget has room for another, but not this address's share (half of it).
        let second = try exchange(post("/second", "Content-Length: \(2 * size)\r\n", "x"))
        XCTAssertEqual(second.status, 503)
        XCTAssertEqual(second.headers["Retry-After"], "2")
        first.send(String(repeating: "a", count: size - 3))
        XCTAssertEqual(try first.readResponse().status, 200)
        try waitUntil { server.server.memoryInUse < size }
        // Within what its address may hold: the body and as much again for parsing it.
        let later = try exchange(post("/later", "Content-Length: \(size)\r\n", String(repeating: "b", count: size)))
        XCTAssertEqual(later.status, 200)
    }

    /// A body is answered only if its address's share also has room for what parsing it makes
    /// (decoded values: as much again): a 3 MiB body fits a 4 MiB share, but not with its parse.
    /// Before, it was parsed outside the budget (a 16 MiB form raised the peak by 32 MiB).
    func testABodyIsCountedWithWhatParsingItMakes() throws {
        server = try TestServer(responder: EchoResponder()) {
            $0.limits.maxBody = 8 << 20
            $0.memoryBudget = 8 << 20
        }
        let body = String(repeating: "p", count: 3 << 20)
        let refused = try exchange(post("/parsed", "Content-Length: \(body.utf8.count)\r\n", body))
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.headers["Retry-After"], "2")
        XCTAssertEqual(refused.text, "Answers waiting for slow readers fill the memory budget.\n")
        try waitUntil { server.server.memoryInUse == 0 }
        let fits = String(repeating: "p", count: 3 << 19)
        XCTAssertEqual(try exchange(post("/parsed", "Content-Length: \(fits.utf8.count)\r\n", fits)).status, 200)
    }

    func testClientsThatPipelineWithoutReadingStayWithinTheMemoryBudget() throws {
        let budget = 2 << 20
        server = try TestServer(responder: EchoResponder()) { $0.memoryBudget = budget }
        // 8 clients each ask for 150 answers of 64 KiB (more than the socket buffers take) and read
        // none: each alone may queue 1 MiB, together only the budget (plus an answer each).
        let requests = String(repeating: "GET /large HTTP/1.1\r\nHost: test\r\n\r\n", count: 150)
        var clients = try (0..<8).map { _ in try server.connect(timeout: 30) }
        for client in clients { client.send(requests) }
        let bound = budget + clients.count * (EchoResponder.largeAnswer + 64 * 1024)
        // Until the server stops growing (or exceeds the bound, which fails at once).
        var peak = 0, unchanged = 0, last = -1
        while unchanged < 25 && peak <= bound {
            Thread.sleep(forTimeInterval: 0.02)
            let now = server.server.memoryInUse
            peak = max(peak, now)
            unchanged = now == last ? unchanged + 1 : 0
            last = now
        }
        XCTAssertLessThanOrEqual(peak, bound)
        // All from one address: past its share (half the budget) no answer is built for it.
        XCTAssertGreaterThan(peak, budget / 4, "the clients did fill most of their address's share")
        // Once they read, answers arrive whole, or as the 503 of an answer never built.
        for client in clients {
            for _ in 0..<3 {
                let answer = try client.readResponse()
                XCTAssertTrue(answer.body.count == EchoResponder.largeAnswer
                              || (answer.status == 503 && answer.headers["Retry-After"] == "2"), "\(answer.status)")
            }
        }
        // Gone, they hold nothing: the address is served again.
        clients.removeAll()
        try waitUntil { server.server.memoryInUse == 0 }
        try assertStillServing()
    }

    func testHalfClosedSockets() throws {
        // A partial head, then the client's FIN: nothing to answer, the connection just ends.
        let partial = try server.connect()
        partial.send("GET /partial HTTP/1.1\r\nHost:")
        partial.shutdownWrite()
        XCTAssertTrue(partial.isClosedByServer())
        XCTAssertEqual(partial.readToEnd(), [])

        // A partial body likewise.
        let body = try server.connect()
        body.send(post("/b", "Content-Length: 10\r\n", "abc"))
        body.shutdownWrite()
        XCTAssertTrue(body.isClosedByServer())

        // Complete pipelined requests before the FIN are all answered, then the server closes.
        let pipelined = try server.connect()
        pipelined.send("GET /1 HTTP/1.1\r\nHost: test\r\n\r\nGET /2 HTTP/1.1\r\nHost: test\r\n\r\n")
        pipelined.shutdownWrite()
        XCTAssertEqual(try pipelined.readResponse().text, "GET /1|0|")
        XCTAssertEqual(try pipelined.readResponse().text, "GET /2|0|")
        XCTAssertTrue(pipelined.isClosedByServer())

        // A client that closes right after an error-causing request does not disturb the server.
        do {
            let rude = try server.connect()
            rude.send("GET / HTTP/1.1\r\nHost: test\r\nBad Header\r\n\r\n")
            rude.shutdownWrite()
        }
        try assertStillServing()
    }

    /// Regression: the server closed right after writing its last bytes into the socket while the
    /// client's later bytes sat unread in it; such a close sends a reset, which throws away what the
    /// client has not received yet. Closing is now lingering (write side shut, input drained, then
    /// close), for every close.
    func testAnswersBeforeACloseArriveWholeWhileTheClientKeepsSending() throws {
        let size = 1 << 20
        server = try TestServer(responder: EchoResponder()) { $0.limits.maxBody = size }
        let body = String(repeating: "b", count: size)
        let expected = "POST /close|\(size)|" + body
        for round in 0..<5 {
            let client = try server.connect()
            client.send(post("/close", "Connection: close\r\nContent-Length: \(size)\r\n", body))
            // The answer fills the socket buffers; the server waits to write the rest and no
            // longer reads, so these bytes stay unread in its socket.
            Thread.sleep(forTimeInterval: 0.3)
            client.send("GET /late HTTP/1.1\r\nHost: test\r\n\r\n")
            let answer = try? client.readResponse()
            XCTAssertEqual(answer?.body.count, expected.utf8.count, "round \(round): answer cut short by a reset")
            XCTAssertTrue(answer?.text == expected, "round \(round)")
        }
    }

    func testTenThousandPipelinedRequestsInOneWrite() throws {
        let count = 10_000
        let raw = (0..<count).map { "GET /p\($0) HTTP/1.1\r\nHost: test\r\n\r\n" }.joined()
        let client = try server.connect(timeout: 30)
        // Write from another thread: the answers fill the socket buffers while the requests go in.
        let writer = Unchecked(client)
        let sending = DispatchGroup()
        DispatchQueue.global().async(group: sending) { writer.value.send(raw) }
        for index in 0..<count {
            let response = try client.readResponse()
            guard response.text == "GET /p\(index)|0|" else {
                return XCTFail("answer \(index) was \(response.text)")
            }
        }
        sending.wait()
        try assertStillServing()
    }

    func testAClientThatNeverReadsItsAnswersDoesNotStallOthers() throws {
        // Far more answers (about 6 MiB) than the server buffers for one connection (1 MiB): it
        // must stop reading this client rather than grow, and keep serving the others.
        let count = 50_000
        let greedy = try server.connect(timeout: 60)
        let writer = Unchecked(greedy)
        let sending = DispatchGroup()
        DispatchQueue.global().async(group: sending) {
            writer.value.send(String(repeating: "GET /g HTTP/1.1\r\nHost: test\r\n\r\n", count: count))
        }
        for index in 0..<5 {
            let client = try server.connect()
            client.send("GET /other\(index) HTTP/1.1\r\nHost: test\r\n\r\n")
            XCTAssertEqual(try client.readResponse().text, "GET /other\(index)|0|")
        }
        // Once it reads, every answer arrives intact and in order.
        for index in 0..<count {
            let response = try greedy.readResponse()
            guard response.text == "GET /g|0|" else { return XCTFail("answer \(index) was \(response.text)") }
        }
        sending.wait()
    }
}

/// Polls until `condition` holds (what a test waits for happens on the server's threads).
private func waitUntil(timeout: Double = 20, _ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { throw WaitedInVain() }
        Thread.sleep(forTimeInterval: 0.01)
    }
}

private struct WaitedInVain: Error {}

/// Lets a test hand a client to a writer thread; the test reads while that thread only writes.
private final class Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
