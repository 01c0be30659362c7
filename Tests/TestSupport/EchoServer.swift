import Foundation
import MockHTTP
import XCTest

/// Answers `METHOD target|body length|body`, so tests see exactly what the server parsed.
public struct EchoResponder: HTTPResponder {
    public init() {}

    /// The body size of the answer to `/large`.
    public static let largeAnswer = 64 * 1024

    public func respond(to request: Request) -> Response {
        var response = Response.text(200, "\(request.method) \(request.target)|\(request.body.count)|"
            + String(decoding: request.body, as: UTF8.self))
        if request.path == "/slow" { response.delay = 0.3 }
        if request.path == "/large" { response = Response.text(200, String(repeating: "l", count: Self.largeAnswer)) }
        if request.path == "/teapot" {
            response = Response(status: 409, reason: "Conflict User Exists", body: [])
        }
        return response
    }

    public func didRespond(_ exchange: Exchange) {}
}

/// Tests of the transport against an `EchoResponder` server: raw exchanges, and the check that a
/// refused request is refused the transport's way and leaves the server serving.
public protocol EchoServerTests {
    var server: TestServer! { get }
}

extension EchoServerTests {
    /// Sends raw bytes on a new connection and reads one response.
    public func exchange(_ raw: String) throws -> ClientResponse {
        let client = try server.connect()
        client.send(raw)
        return try client.readResponse()
    }

    /// Every bad request must leave the server answering the next client normally.
    public func assertStillServing(file: StaticString = #filePath, line: UInt = #line) throws {
        let response = try exchange("GET /after HTTP/1.1\r\nHost: test\r\n\r\n")
        XCTAssertEqual(response.status, 200, file: file, line: line)
        XCTAssertEqual(response.text, "GET /after|0|", file: file, line: line)
    }

    /// The HTTP layer's answer: the status, a plain-text body, `Connection: close`, then the close.
    public func assertRejected(_ raw: String, status: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        try assertRejected(Array(raw.utf8), status: status, file: file, line: line)
    }

    public func assertRejected(_ raw: [UInt8], status: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let client = try server.connect()
        client.send(raw)
        let response = try client.readResponse()
        XCTAssertEqual(response.status, status, String(decoding: raw.prefix(120), as: UTF8.self), file: file, line: line)
        XCTAssertEqual(response.headers["Connection"], "close", file: file, line: line)
        XCTAssertEqual(response.headers["Content-Type"], "text/plain; charset=utf-8", file: file, line: line)
        XCTAssertTrue(client.isClosedByServer(), "connection closed after the error", file: file, line: line)
        try assertStillServing(file: file, line: line)
    }
}
