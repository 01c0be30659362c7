import MockApp
import MockHTTP
import TestSupport
import XCTest

/// Behind a proxy on the same machine every caller reaches the server from loopback; a request that
/// carries a proxy's forwarding header is not trusted as a loopback caller (issue 29 item 10,
/// docs/admin.md#who-may-call-it).
final class AdminProxyTests: XCTestCase {
    private static let refusedBody = #"{"error":"forbidden","detail":"/_mock serves loopback callers only, and a request a proxy "#
        + #"forwarded is not one (behind a proxy every caller looks local); start the server with --admin-token and send the token"}"#

    private func get(_ server: TestServer, _ target: String, _ headLines: [String]) throws -> ClientResponse {
        let client = try server.connect()
        client.send(rawRequest(["GET \(target) HTTP/1.1", "Host: localhost"] + headLines + ["Connection: close"]))
        return try client.readResponse()
    }

    func testForwardedRequestsAreNotLoopbackCallers() throws {
        let log = ConsoleLines()
        let server = try TestServer(apis: ["threads", "otp"], settings: AppSettings(log: RequestLog(format: .text, output: log.append)))
        // What nginx (`proxy_set_header`), Apache and Caddy (X-Forwarded-For by default), RFC 7239 and Squid (Via) add.
        let forwarded = ["X-Forwarded-For: 192.0.2.7", "x-real-ip: 192.0.2.7", "Forwarded: for=192.0.2.7;proto=http",
                         "X-Forwarded-Host: mock.school.example", "X-Forwarded-Proto: https", "Via: 1.1 proxy"]
        for header in forwarded {
            for target in ["/_mock/requests", "/_mock/otp/outbox", "/_mock/health"] {
                let refused = try get(server, target, [header])
                XCTAssertEqual(refused.status, 403, "\(header) \(target)")
                XCTAssertEqual(refused.text, Self.refusedBody, header)
            }
        }
        XCTAssertFalse(try get(server, "/", ["X-Forwarded-For: 192.0.2.7"]).text.contains("id=\"journal-rows\""),
                       "the index page shows a forwarded caller no requests")
        XCTAssertEqual(try get(server, "/_mock/requests", []).status, 200, "a tool on this machine, no proxy")
        XCTAssertEqual(try get(server, "/api/threads", ["X-Forwarded-For: 192.0.2.7"]).status, 401, "course APIs are public")
        _ = try log.waitForLine(containing: "GET /api/threads 401")  // the last request: every line is in
        let refusals = log.all.filter { $0.contains("GET /_mock/requests 403") }
        XCTAssertEqual(refusals.count, forwarded.count, refusals.joined(separator: "\n"))
        XCTAssertTrue(refusals.first?.hasSuffix("admin (the request carries X-Forwarded-For: a proxy forwarded it, so its "
                                                + "loopback address proves nothing)") == true, refusals.first ?? "")
    }

    /// With a token the address does not matter, forwarded or not.
    func testTokenHoldersBehindAProxyAreServed() throws {
        let server = try TestServer(apis: ["threads"], settings: AppSettings(adminToken: "s3cret"))
        XCTAssertEqual(try get(server, "/_mock/requests", ["X-Forwarded-For: 192.0.2.7", "X-Mock-Admin-Token: s3cret"]).status, 200)
        XCTAssertEqual(try get(server, "/_mock/requests", ["X-Forwarded-For: 192.0.2.7"]).status, 401)
    }
}
