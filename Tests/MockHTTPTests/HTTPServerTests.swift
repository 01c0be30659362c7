import Foundation
import MockHTTP
import TestSupport
import XCTest

final class HTTPServerTests: XCTestCase, EchoServerTests {
    var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer(responder: EchoResponder())
    }

    override func tearDown() {
        server = nil
    }

    /// MOCK_POLLER picks the backend of every server in this process (CI runs the suite with poll).
    func testPollerFollowsTheEnvironment() {
        let requested = ProcessInfo.processInfo.environment["MOCK_POLLER"].flatMap(PollerKind.init(rawValue:))
        XCTAssertEqual(ServerConfiguration().poller, requested ?? PollerKind.available[0])
        // poll everywhere; epoll first, as the default, where the system has it (Linux).
        XCTAssertEqual(PollerKind.available.last, .poll)
    }

    /// Each backend, whatever MOCK_POLLER says, with connections spread over four loops and kept
    /// open together, then closed by the clients.
    func testEveryPollerServesManyConnectionsAtOnce() throws {
        for kind in PollerKind.available {
            let server = try TestServer(responder: EchoResponder()) {
                $0.poller = kind
                $0.threads = 4
            }
            let clients = try (0..<40).map { _ in try server.connect() }
            for round in 0..<3 {
                for (index, client) in clients.enumerated() {
                    client.send("GET /c\(index)/r\(round) HTTP/1.1\r\nHost: x\r\n\r\n")
                }
                for (index, client) in clients.enumerated() {
                    XCTAssertEqual(try client.readResponse().text, "GET /c\(index)/r\(round)|0|", kind.rawValue)
                }
            }
            XCTAssertEqual(server.server.connectionCount, 40, kind.rawValue)
        }
    }

    private func get(_ target: String, extra: String = "") -> String {
        "GET \(target) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n"
    }

    func testSimpleGetHasDateAndLength() throws {
        let response = try exchange(get("/hello?x=1"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.reason, "OK")
        XCTAssertEqual(response.text, "GET /hello?x=1|0|")
        XCTAssertEqual(response.headers["Content-Length"], "17")
        XCTAssertNotNil(response.headers["Date"])
        XCTAssertTrue(response.headers["Date"]!.hasSuffix(" GMT"))
        XCTAssertNil(response.headers["Connection"])
    }

    func testCustomReasonPhrase() throws {
        let response = try exchange(get("/teapot"))
        XCTAssertEqual(response.status, 409)
        XCTAssertEqual(response.reason, "Conflict User Exists")
        XCTAssertEqual(response.headers["Content-Length"], "0")
    }

    func testRequestSplitIntoSingleBytes() throws {
        let client = try server.connect()
        for byte in Array("POST /split HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello".utf8) {
            client.send([byte])
        }
        XCTAssertEqual(try client.readResponse().text, "POST /split|5|hello")
    }

    func testThreePipelinedRequestsInOneWrite() throws {
        let client = try server.connect()
        client.send(get("/one") + "POST /two HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\nabc" + get("/three"))
        XCTAssertEqual(try client.readResponse().text, "GET /one|0|")
        XCTAssertEqual(try client.readResponse().text, "POST /two|3|abc")
        XCTAssertEqual(try client.readResponse().text, "GET /three|0|")
    }

    func testKeepAliveReusesTheConnection() throws {
        let client = try server.connect()
        for index in 0..<5 {
            client.send(get("/n\(index)"))
            XCTAssertEqual(try client.readResponse().text, "GET /n\(index)|0|")
        }
    }

    func testConnectionCloseIsHonoured() throws {
        let client = try server.connect()
        client.send(get("/bye", extra: "Connection: keep-alive, close\r\n"))
        let response = try client.readResponse()
        XCTAssertEqual(response.headers["Connection"], "close")
        XCTAssertTrue(client.isClosedByServer())
    }

    func testHTTP10ClosesUnlessKeepAlive() throws {
        let plain = try server.connect()
        plain.send("GET /old HTTP/1.0\r\n\r\n")
        XCTAssertEqual(try plain.readResponse().headers["Connection"], "close")
        XCTAssertTrue(plain.isClosedByServer())

        let kept = try server.connect()
        kept.send("GET /a HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
        XCTAssertEqual(try kept.readResponse().headers["Connection"], "keep-alive")
        kept.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(try kept.readResponse().text, "GET /b|0|")
    }

    func testHeadHasLengthButNoBody() throws {
        let client = try server.connect()
        client.send("HEAD /h HTTP/1.1\r\nHost: test\r\n\r\n" + get("/next"))
        let head = try client.readResponse(head: true)
        XCTAssertEqual(head.headers["Content-Length"], "10")
        XCTAssertEqual(try client.readResponse().text, "GET /next|0|", "no stray body bytes between the answers")
    }

    func testChunkedBodyWithExtensionsAndTrailers() throws {
        let response = try exchange("POST /c HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: yes\r\n\r\n")
        XCTAssertEqual(response.text, "POST /c|12|hello, world")
        try assertStillServing()
    }

    func testChunkedEncodingNameIsCaseInsensitive() throws {
        let response = try exchange("POST /c HTTP/1.1\r\nHost: test\r\nTransfer-Encoding:  Chunked \r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        XCTAssertEqual(response.text, "POST /c|3|abc")
    }

    func testBadChunkSize() throws {
        try assertRejected("POST /c HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", status: 400)
    }

    func testChunkDataWithoutCRLF() throws {
        try assertRejected("POST /c HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", status: 400)
    }

    func testContentLengthWithTransferEncodingIsSmuggling() throws {
        try assertRejected("POST /s HTTP/1.1\r\nHost: test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400)
    }

    func testDuplicateContentLengthEvenIfEqual() throws {
        try assertRejected("POST /d HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", status: 400)
    }

    func testNegativeAndSignedContentLength() throws {
        try assertRejected("POST /n HTTP/1.1\r\nHost: test\r\nContent-Length: -1\r\n\r\n", status: 400)
        try assertRejected("POST /n HTTP/1.1\r\nHost: test\r\nContent-Length: +3\r\n\r\nabc", status: 400)
    }

    func testHugeContentLengthIsAnsweredFromTheHeaders() throws {
        try assertRejected("POST /big HTTP/1.1\r\nHost: test\r\nContent-Length: 99999999999999999999999\r\n\r\n", status: 413)
        try assertRejected("POST /big HTTP/1.1\r\nHost: test\r\nContent-Length: 16777217\r\n\r\n", status: 413)
    }

    func testTransferEncodingOtherThanChunked() throws {
        try assertRejected("POST /t HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", status: 501)
        try assertRejected("POST /t HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: xchunked\r\n\r\n", status: 501)
    }

    func testMalformedHeads() throws {
        try assertRejected("GET / HTTP/1.1\nHost: x\r\n\r\n", status: 400)
        try assertRejected("GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", status: 400)
        try assertRejected("GET / HTTP/1.1\r\nHost: a\u{0}b\r\n\r\n", status: 400)
        try assertRejected("GET / HTTP/1.1\r\nHost: test\r\nBad Name: x\r\n\r\n", status: 400)
        try assertRejected("GET /  HTTP/1.1\r\nHost: test\r\n\r\n", status: 400)
        try assertRejected("GET / HTTP/1.1\r\nHost: test\r\nNoColon\r\n\r\n", status: 400)
        try assertRejected("GARBAGE\r\n\r\n", status: 400)
    }

    func testUnsupportedVersionAndExpectation() throws {
        try assertRejected("GET / HTTP/2.0\r\n\r\n", status: 505)
        try assertRejected("GET / HTTP/1.1\r\nHost: test\r\nExpect: something\r\n\r\n", status: 417)
    }

    func testOversizeRequestLineAndHeaders() throws {
        try assertRejected("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: test\r\n\r\n", status: 414)
        try assertRejected(get("/", extra: "X-Big: " + String(repeating: "b", count: 70_000) + "\r\n"), status: 431)
        let many = (0..<300).map { "X-\($0): v\r\n" }.joined()
        try assertRejected(get("/", extra: many), status: 431)
    }

    func testExpectContinue() throws {
        let client = try server.connect()
        client.send("POST /e HTTP/1.1\r\nHost: test\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readResponse()
        XCTAssertEqual(interim.status, 100)
        client.send("data")
        XCTAssertEqual(try client.readResponse().text, "POST /e|4|data")
    }

    func testClientDisconnectingMidBody() throws {
        do {
            let client = try server.connect()
            client.send("POST /m HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\nonly a part")
        }
        try assertStillServing()
    }

    func testHalfClosedClientStillGetsItsAnswer() throws {
        let client = try server.connect()
        client.send(get("/half"))
        client.shutdownWrite()
        XCTAssertEqual(try client.readResponse().text, "GET /half|0|")
        XCTAssertTrue(client.isClosedByServer())
    }

    func testTwoHundredConcurrentConnections() throws {
        let clients = try (0..<200).map { _ in try server.connect() }
        for (index, client) in clients.enumerated() { client.send(get("/c\(index)")) }
        for (index, client) in clients.enumerated() {
            XCTAssertEqual(try client.readResponse().text, "GET /c\(index)|0|")
        }
    }

    func testDelayedAnswerKeepsPipelineOrder() throws {
        let client = try server.connect()
        let started = Date()
        client.send(get("/slow") + get("/fast"))
        XCTAssertEqual(try client.readResponse().text, "GET /slow|0|")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3)
        XCTAssertEqual(try client.readResponse().text, "GET /fast|0|")
    }

    func testDelayedAnswerDoesNotHoldOthersBack() throws {
        let slow = try server.connect()
        slow.send(get("/slow"))
        let response = try exchange(get("/quick"))
        XCTAssertEqual(response.text, "GET /quick|0|")
        XCTAssertEqual(try slow.readResponse().text, "GET /slow|0|")
    }
}

final class HTTPTimeoutTests: XCTestCase {
    func testSlowHeadIsDroppedWith408() throws {
        let server = try TestServer(responder: EchoResponder()) { $0.headerTimeout = 0.5 }
        let client = try server.connect()
        client.send("GET /slow HTTP/1.1\r\nHost: x\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 408)
        XCTAssertTrue(client.isClosedByServer())
    }

    func testIdleKeepAliveConnectionIsClosed() throws {
        let server = try TestServer(responder: EchoResponder()) { $0.idleTimeout = 0.5 }
        let client = try server.connect()
        client.send("GET / HTTP/1.1\r\nHost: test\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
        XCTAssertTrue(client.isClosedByServer())
    }

    func testConnectionsBeyondTheCapWaitUntilOneCloses() throws {
        let server = try TestServer(responder: EchoResponder()) {
            $0.maxConnections = 16
            $0.maxConnectionsPerAddress = 16
        }
        var held = try (0..<16).map { _ in try server.connect() }
        for client in held {
            client.send("GET /held HTTP/1.1\r\nHost: test\r\n\r\n")
            XCTAssertEqual(try client.readResponse().status, 200)
        }
        let waiting = try server.connect(timeout: 0.5)
        waiting.send("GET /waiting HTTP/1.1\r\nHost: test\r\n\r\n")
        XCTAssertThrowsError(try waiting.readResponse(), "not accepted while the cap is reached")
        held.removeLast()
        // The waiting client's short timeout: keep reading until it is accepted and answered.
        var answer: ClientResponse?
        for _ in 0..<40 where answer == nil { answer = try? waiting.readResponse() }
        XCTAssertEqual(answer?.text, "GET /waiting|0|")
        XCTAssertEqual(server.server.connectionCap, 16)
    }

    func testStopLetsRequestsInFlightFinish() throws {
        let server = try TestServer(responder: EchoResponder())
        let client = try server.connect()
        client.send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.05)
        server.server.stop(grace: 5)
        let response = try client.readResponse()
        XCTAssertEqual(response.text, "GET /slow|0|")
        XCTAssertEqual(response.headers["Connection"], "close")
        XCTAssertThrowsError(try server.connect(), "no longer listening")
    }

    func testConnectionCapAndBusyPort() throws {
        let server = try TestServer(responder: EchoResponder())
        let second = HTTPServer(configuration: {
            var configuration = ServerConfiguration()
            configuration.host = "127.0.0.1"
            configuration.port = server.port
            return configuration
        }(), responder: EchoResponder())
        XCTAssertThrowsError(try second.start()) { error in
            XCTAssertEqual(error as? SocketError, .addressInUse(host: "127.0.0.1", port: server.port))
        }
    }
}
