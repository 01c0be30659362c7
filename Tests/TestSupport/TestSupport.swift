import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import XCTest

/// One ordinary request per course API of the catalog, as its clients send it (`target`: path and
/// query), for the tests that go through every API.
public let sampleRequests: [String: (method: String, target: String, body: String)] = [
    "threads": ("GET", "/api/threads", ""),
    "internproducts": ("GET", "/login?username=admin&password=1234", ""),
    "wsuv": ("GET", "/~cs458/cgi-bin/get-tweets.cgi", ""),
    "cse118": ("POST", "/api/v2/login", "{}"),
    "otp": ("POST", "/api/user", "{}"),
]

/// A real server on an ephemeral loopback port, in the test process; stopped when released.
public final class TestServer {
    public let server: HTTPServer
    public var port: Int { server.port }

    public init(responder: any HTTPResponder, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = 2
        configure(&configuration)
        server = HTTPServer(configuration: configuration, responder: responder)
        try server.start()
    }

    /// The whole mock app with the shipped seed (or some APIs of it).
    public convenience init(apis only: [String]? = nil, options: APIOptions = APIOptions(),
                            settings: AppSettings = AppSettings(),
                            configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        let apis = try APICatalog.load(only, seed: Self.shippedSeed, options: options)
        try self.init(responder: MockApp(apis: apis, settings: settings), configure: configure)
    }

    deinit { server.stop(grace: 1) }

    /// The repository's `Seed/` folder.
    public static var shippedSeed: SeedDirectory {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return SeedDirectory(url: root.appendingPathComponent("Seed"))
    }

    public func connect(timeout: Double = 10) throws -> BlockingClient {
        try BlockingClient(host: "127.0.0.1", port: port, timeout: timeout)
    }

    /// One request on a new connection, as a client library would send it.
    public func request(_ method: String, _ target: String, headers: [(String, String)] = [],
                        body: [UInt8] = []) throws -> ClientResponse {
        try httpRequest(port: port, method, target, headers: headers, body: body)
    }

    public func request(_ method: String, _ target: String, headers: [(String, String)] = [],
                        body: String) throws -> ClientResponse {
        try request(method, target, headers: headers, body: Array(body.utf8))
    }
}

/// One request on a new connection to a loopback port, as a client library would send it.
/// `working`: for an answer that may take the server long, waited for while it says the server
/// is still at it (`BlockingClient.waitForAnswer`) instead of for the client's 10 s.
public func httpRequest(port: Int, _ method: String, _ target: String, headers: [(String, String)] = [],
                        body: [UInt8] = [], waitingWhile working: (() -> Bool)? = nil) throws -> ClientResponse {
    let client = try BlockingClient(host: "127.0.0.1", port: port, timeout: 10)
    var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
    client.send(Array((head + "\r\n").utf8) + body)
    if let working { _ = client.waitForAnswer(while: working) }
    return try client.readResponse(head: method == "HEAD")
}

/// A raw request head for hand-made exchanges.
public func rawRequest(_ lines: [String], body: String = "") -> String {
    lines.joined(separator: "\r\n") + "\r\n\r\n" + body
}

/// Console lines written by a server under test, read as they arrive: the server logs a request
/// just after answering it, so a reader waits for the line instead of expecting it at once.
public final class ConsoleLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    public init() {}

    public func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    /// Every line so far, in order.
    public var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    /// The last line containing `text` among those after the first `skipping`, waiting up to 10 s for it.
    public func waitForLine(containing text: String, skipping: Int = 0) throws -> String {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let line = all.dropFirst(skipping).last(where: { $0.contains(text) }) { return line }
            usleep(2000)
        }
        throw ConsoleLinesError.noLine(text, seen: all)
    }
}

public enum ConsoleLinesError: Error {
    case noLine(String, seen: [String])
}

extension TestServer {
    /// The newest entry of the request journal (`GET /_mock/requests?limit=1`).
    public func lastJournalEntry() throws -> JSONObject {
        let journal = try JSONParser.parse(try request("GET", "/_mock/requests?limit=1").body)
        return try XCTUnwrap(journal.arrayValue?.first?.objectValue)
    }
}
