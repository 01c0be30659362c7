import Foundation
import MockApp
import MockHTTP
import TestSupport
import XCTest

/// An https client on the http port is closed at once and told, in one console line and a
/// journal entry, to use http:// (docs/clients.md).
final class TLSDetectionTests: XCTestCase {
    private let console = ConsoleLines()
    private var server: TestServer!

    override func setUpWithError() throws {
        // A header timeout far beyond the client's read timeout: only the detection can close in time.
        server = try TestServer(settings: AppSettings(log: RequestLog(format: .text, output: console.append))) {
            $0.headerTimeout = 120
        }
    }

    override func tearDown() {
        server = nil
    }

    func testAClientHelloIsClosedAtOnceAndExplained() throws {
        let client = try server.connect(timeout: 5)
        client.send(Self.clientHello(serverName: "localhost"))
        XCTAssertTrue(client.isClosedByServer())
        XCTAssertEqual(client.readToEnd(), [], "nothing is answered: the client expects TLS")
        let reason = "the client spoke https to this http port (connection closed): use http://localhost:\(server.port)/… "
            + "instead of https://, and see docs/clients.md for the platform's cleartext setting"
        XCTAssertEqual(try console.waitForLine(containing: "https"), "\(try timePrefix()) 127.0.0.1 \(reason)")
        let entry = try server.lastJournalEntry()
        XCTAssertEqual(entry["method"]?.stringValue, "TLS")
        XCTAssertEqual(entry["status"], .null, "nothing was answered")
        XCTAssertEqual(entry["reason"]?.stringValue, reason)
    }

    func testWithoutAServerNameTheHostIsLeftToThePerson() throws {
        let client = try server.connect(timeout: 5)
        client.send(Self.clientHello(serverName: nil))
        XCTAssertTrue(client.isClosedByServer())
        XCTAssertTrue(try console.waitForLine(containing: "https").contains("use http://HOST:\(server.port)/… instead of https://"))
    }

    /// The server name is the client's: a line break or an escape in it is spelled out on the console.
    func testAServerNameCannotWriteConsoleLinesOrTerminalEscapes() throws {
        let client = try server.connect(timeout: 5)
        client.send(Self.clientHello(serverName: "evil\n12:00:00.000 1.2.3.4 GET /forged 200\u{1B}[2J"))
        XCTAssertTrue(client.isClosedByServer())
        let line = try console.waitForLine(containing: "https")
        XCTAssertTrue(line.contains(#"use http://evil\n12:00:00.000 1.2.3.4 GET /forged 200\u001B[2J:\#(server.port)/…"#), line)
    }

    /// In a container the listening port is not the one clients use; a public URL is.
    func testTheHintNamesThePublicURLOrAdmitsTheHostPortIsUnknown() throws {
        for (addresses, advice) in [
            (ServerAddresses(inContainer: true), "use http://localhost:<host-port>/… instead of https://, and see docs/clients.md"),
            (ServerAddresses(publicURL: try PublicURL(parsing: "http://192.168.1.20:9000"), inContainer: true),
             "use http://192.168.1.20:9000/… instead of https://, and see docs/clients.md"),
            (ServerAddresses(publicURL: try PublicURL(parsing: "https://mock.example.edu")),
             "use https://mock.example.edu/…, the address in front of this server (--public-url)"),
        ] {
            let console = ConsoleLines()
            var settings = AppSettings(log: RequestLog(format: .text, output: console.append))
            settings.addresses = addresses
            let server = try TestServer(settings: settings)
            let client = try server.connect(timeout: 5)
            client.send(Self.clientHello(serverName: "localhost"))
            XCTAssertTrue(client.isClosedByServer())
            let line = try console.waitForLine(containing: "https")
            XCTAssertTrue(line.contains("the client spoke https to this http port (connection closed): \(advice)"), line)
        }
    }

    func testTheServerKeepsServingHTTP() throws {
        let client = try server.connect(timeout: 5)
        client.send(Self.clientHello(serverName: "example.test"))
        XCTAssertTrue(client.isClosedByServer())
        XCTAssertEqual(try server.request("GET", "/_mock/health").status, 200)
        XCTAssertEqual(try server.request("GET", "/api/threads").status, 401)
    }

    /// The console line's time, from the line itself (the clock is the server's).
    private func timePrefix() throws -> String {
        String(try console.waitForLine(containing: "https").prefix(12))
    }

    /// A TLS 1.2-style ClientHello record as curl and URLSession open with: one cipher suite, no
    /// compression, and the server_name extension when a name is given.
    static func clientHello(serverName: String?) -> [UInt8] {
        // Built with `+=` one part at a time: one long `+` chain is more than Swift 6.0 can type-check.
        func length16(_ count: Int) -> [UInt8] { [UInt8(count >> 8), UInt8(count & 0xFF)] }
        var extensions: [UInt8] = []
        if let serverName {
            let name: [UInt8] = Array(serverName.utf8)
            var entry: [UInt8] = [0]  // host_name
            entry += length16(name.count)
            entry += name
            extensions = [0, 0]  // server_name
            extensions += length16(entry.count + 2)
            extensions += length16(entry.count)
            extensions += entry
        }
        var hello: [UInt8] = [3, 3]  // TLS 1.2
        hello += [UInt8](repeating: 7, count: 32)  // random
        hello.append(0)  // no session id
        hello += length16(2)
        hello += [0x13, 0x01]  // TLS_AES_128_GCM_SHA256
        hello += [1, 0]  // no compression
        hello += length16(extensions.count)
        hello += extensions
        var handshake: [UInt8] = [1, 0]  // ClientHello, length's high byte
        handshake += length16(hello.count)
        handshake += hello
        var record: [UInt8] = [0x16, 0x03, 0x01]  // handshake record, TLS 1.0
        record += length16(handshake.count)
        record += handshake
        return record
    }
}
