import Foundation
import MockHTTP
import MockApp
import MockKit
import TestSupport
import XCTest

/// Hostile-input finding of session 6 (/work/notes/hunt-findings-6.md): `{{query.…}}` and
/// `{{path.…}}` in a stub's header values are decoded from the request and written into the
/// answer's head as they are, so a client that sends `%0D%0A` writes header lines (and whole
/// answers) of its own choosing.
final class HuntStubHeaderTests: XCTestCase {
    private var folder: URL!
    private var server: TestServer!

    /// A redirect whose target comes from the query, as docs/admin.md#stubs allows.
    private static let redirect = #"""
    {"request": {"method": "GET", "path": "/go/{where}"},
     "response": {"status": 302, "headers": {"Location": "/next?to={{query.to}}", "X-Where": "{{path.where}}"}}}
    """#

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("hunt-stubs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.redirect.write(to: folder.appendingPathComponent("redirect.json"), atomically: true, encoding: .utf8)
        let apis = try APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
        server = try TestServer(responder: MockApp(apis: apis, stubs: try StubSet.load(folder: folder, apis: apis)))
    }

    override func tearDownWithError() throws {
        server = nil
        try FileManager.default.removeItem(at: folder)
    }

    func testATemplatedHeaderValueCannotAddHeaderLinesOrAnswers() throws {
        let client = try server.connect()
        client.send("GET /go/a%0D%0ASet-Cookie:%20p=1?to=x%0D%0AContent-Length:%200%0D%0A%0D%0AHTTP/1.1%20200%20OK%0D%0AX-Smuggled:%201 HTTP/1.1\r\n"
                    + "Host: test\r\nConnection: close\r\n\r\n")
        let raw = String(decoding: client.readToEnd(), as: UTF8.self)
        XCTAssertTrue(raw.hasPrefix("HTTP/1.1 302 "), raw)
        XCTAssertEqual(raw.components(separatedBy: "HTTP/1.1 ").count, 2, "one answer, not two:\n\(raw)")
        XCTAssertFalse(raw.contains("\r\nSet-Cookie:"), raw)
        XCTAssertFalse(raw.contains("\r\nX-Smuggled:"), raw)
        XCTAssertEqual(raw.components(separatedBy: "\r\nContent-Length:").count, 2, "one Content-Length:\n\(raw)")
    }
}
