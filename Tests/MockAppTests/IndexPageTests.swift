import Foundation
import MockHTTP
@testable import MockApp
import MockKit
import TestSupport
import XCTest

/// The HTML index page at `/` (docs/admin.md): public, not journaled, no CORS; the last requests only
/// for callers who may use `/_mock/…`.
final class IndexPageTests: XCTestCase {
    private var apis: [any MockAPI]!
    private var app: MockApp!
    private var server: TestServer!

    override func setUpWithError() throws {
        apis = try APICatalog.load(seed: TestServer.shippedSeed, options: APIOptions())
        app = try MockApp(apis: apis)
        server = try TestServer(responder: app)
    }

    override func tearDown() {
        server = nil
        app = nil
        apis = nil
    }

    /// `GET /` with the given request head lines after the request line (`Host: …` and so on).
    private func page(_ headLines: [String], method: String = "GET", version: String = "HTTP/1.1") throws -> ClientResponse {
        let client = try server.connect()
        client.send(rawRequest(["\(method) / \(version)"] + headLines + ["Connection: close"]))
        return try client.readResponse(head: method == "HEAD")
    }

    private func row(_ method: String, _ target: String, _ status: Int, _ api: String, reason: String = "") -> String {
        "<td>\(method)</td><td class=\"path\"><code>\(target)</code></td>"
            + "<td class=\"status s\(status / 100)\">\(status)</td><td>\(api)</td><td class=\"reason\">\(reason)</td></tr>"
    }

    func testEveryAPIWithItsBaseURLsAccountsAndOpenAPILink() throws {
        let response = try page(["Host: classroom.local:9090"])
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Type"], "text/html; charset=utf-8")
        XCTAssertNil(response.headers["Access-Control-Allow-Origin"], "the page is not for other sites' scripts")
        let html = response.text
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"), html)
        XCTAssertTrue(html.contains("version <strong>\(MockBackend.version)</strong> · up <strong>"), html)
        XCTAssertTrue(html.contains("<p class=\"meta\">State: changes are kept in memory only (<code>--state FILE</code> keeps them "
            + "across restarts); reset (<code>POST /_mock/reset</code>) returns to the seed files.</p>"), html)
        for api in apis {
            XCTAssertTrue(html.contains("<h2>\(api.summary.title) <span class=\"tag\">\(api.name)</span></h2>"), api.name)
            XCTAssertEqual(html.contains("<a href=\"/_mock/openapi/\(api.name).json\">OpenAPI document</a>"),
                           api.openAPIDocument != nil, api.name)
        }
        XCTAssertTrue(html.contains("<a href=\"/_mock/openapi/threads.json\">"), "threads has an OpenAPI document")

        let threadsURL = "<span>http://classroom.local:9090</span><wbr><span>/api/</span>"
        XCTAssertTrue(html.contains("<tr><th>this browser</th><td><code>\(threadsURL)</code></td></tr>"), html)
        XCTAssertTrue(html.contains("<span>http://10.0.2.2:9090</span><wbr><span>/api/</span>"), html)
        XCTAssertTrue(html.contains("<span>http://classroom.local:9090</span><wbr><span>/~cs458/cgi-bin/</span>"), html)
        XCTAssertTrue(html.contains("also answers under <code>/~wcochran/cgi-bin/</code>, <code>/cgi-bin/</code>, <code>/</code>"))
        for address in SameNetwork.addresses(NetworkInterface.all()) {
            XCTAssertTrue(html.contains("<tr><th>same network</th><td><code><span>http://\(address):9090</span><wbr>"), address)
        }

        XCTAssertTrue(html.contains("<tr><td><code>a@a.com</code></td><td><code>test123</code></td>"
                                    + "<td class=\"detail\">Ervin Sondag</td></tr>"), html)
        XCTAssertTrue(html.contains("<tr><td><code>night owl</code></td><td><code>hoot hoot</code></td></tr>"),
                      "WSUV has no details, so no details column")
        XCTAssertTrue(html.contains("<tr><td><code>+15305550100</code></td><td class=\"detail\">Alex Rivera, x-authtoken "),
                      "one-time codes: no password column")
        XCTAssertFalse(html.contains("<script>"), "a loopback browser shows the journal only at its own names")
        let local = try page(["Host: localhost:9090"]).text
        XCTAssertEqual(local.components(separatedBy: "<script>").count, 2, "one script, inline")
        for html in [html, local] {
            XCTAssertFalse(html.contains("href=\"http") || html.contains("src="), "nothing is loaded from elsewhere")
        }
    }

    func testBaseURLFallsBackWhenTheHostHeaderIsMissingOrOdd() throws {
        let http10 = try page([], version: "HTTP/1.0")
        XCTAssertEqual(http10.status, 200)
        XCTAssertTrue(http10.text.contains("<span>http://localhost:8080</span><wbr><span>/api/</span>"))
        let odd = try page(["Host: evil\"><script>x"])
        XCTAssertTrue(odd.text.contains("<span>http://localhost:8080</span><wbr><span>/api/</span>"))
        XCTAssertFalse(odd.text.contains("evil"))
        let ipv6 = try page(["Host: [::1]:8123"])
        XCTAssertTrue(ipv6.text.contains("<span>http://[::1]:8123</span><wbr><span>/api/</span>"))
        XCTAssertTrue(ipv6.text.contains("<span>http://10.0.2.2:8123</span><wbr>"), "the emulator uses the same port")
        if let lan = SameNetwork.addresses(NetworkInterface.all()).first {
            let fromPhone = try page(["Host: \(lan):9090"]).text
            XCTAssertTrue(fromPhone.contains("<tr><th>this browser</th><td><code><span>http://\(lan):9090</span>"))
            XCTAssertFalse(fromPhone.contains("<tr><th>same network</th><td><code><span>http://\(lan):9090</span>"),
                           "the address the browser used is not repeated")
        }
        let defaultPort = try page(["Host: mock.example"])
        XCTAssertTrue(defaultPort.text.contains("<span>http://10.0.2.2</span><wbr><span>/api/</span>"))
    }

    func testAccountNamesAreEscaped() throws {
        let seed = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: seed, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: seed) }
        let document = #"{"users":[{"username":"<b>&\"x'","password":"p<w>","session_token":"0"}],"tweets":[]}"#
        try Data(document.utf8).write(to: seed.appendingPathComponent("wsuv.json"))
        apis = try APICatalog.load(["wsuv"], seed: SeedDirectory(url: seed), options: APIOptions())
        server = try TestServer(responder: MockApp(apis: apis))
        let html = try page(["Host: 127.0.0.1"]).text
        XCTAssertTrue(html.contains("<tr><td><code>&lt;b&gt;&amp;&quot;x&#39;</code></td><td><code>p&lt;w&gt;</code></td></tr>"),
                      html)
        XCTAssertFalse(html.contains("<b>"))
        XCTAssertFalse(html.contains("p<w>"))
    }

    func testEscapingWorksByScalar() {
        XCTAssertEqual(HTML.escape(#"a<b>&"c'd"#), "a&lt;b&gt;&amp;&quot;c&#39;d")
        // `<` with a combining mark is one Character, but the browser still sees a `<`.
        XCTAssertEqual(HTML.escape("<\u{338}script>"), "&lt;\u{338}script&gt;")
        XCTAssertEqual(HTML.escape("héllo 👋🏽"), "héllo 👋🏽")
    }

    func testLastRequestsNewestFirstForLoopbackAndThePageIsNotJournaled() throws {
        XCTAssertTrue(try page(["Host: 127.0.0.1"]).text.contains("No requests yet."))
        _ = try server.request("POST", "/api/login", body: "email=a@a.com&password=test123")
        _ = try server.request("GET", "/nothing?x=<1>")
        let html = try page(["Host: 127.0.0.1"]).text
        let login = try XCTUnwrap(html.range(of: row("POST", "/api/login", 200, "threads")), html)
        let missing = try XCTUnwrap(html.range(of: row("GET", "/nothing?x=&lt;1&gt;", 404, "—",
                                                        reason: "no API serves this path")), html)
        XCTAssertLessThan(missing.lowerBound, login.lowerBound, "newest first")

        let journal = try server.request("GET", "/_mock/requests").text
        XCTAssertEqual(journal.components(separatedBy: #""method":"#).count - 1, 2, "the page itself is not journaled")
        XCTAssertFalse(journal.contains(#""path":"/""#))
    }

    /// Rows are marked by outcome, not by status alone: an error answered with 200 (InternProducts'
    /// `FAILED`) is an error, a fault injected into a success is a fault (docs/admin.md#the-live-journal).
    func testRowsAreMarkedByTheirOutcome() throws {
        _ = try server.request("POST", "/api/login", body: "email=a@a.com&password=test123")
        let failed = try server.request("GET", "/login?username=admin&password=wrong")
        XCTAssertEqual(failed.status, 200)
        _ = try server.request("GET", "/api/threads")
        _ = try server.request("PUT", "/_mock/faults", body: #"{"slow_bytes_per_s":1000000,"routes":["GET /products"]}"#)
        XCTAssertEqual(try server.request("GET", "/products").status, 200)
        let html = try page(["Host: 127.0.0.1"]).text
        func outcome(of target: String) -> String? {
            html.components(separatedBy: "<tr class=\"entry ").dropFirst().first { $0.contains("<code>\(target)</code>") }
                .map { String($0.prefix { $0 != "\"" }) }
        }
        XCTAssertEqual(outcome(of: "/api/login"), "ok", html)
        XCTAssertEqual(outcome(of: "/login?username=admin&amp;password=wrong"), "error", "200 FAILED is an error")
        XCTAssertEqual(outcome(of: "/api/threads"), "error")
        XCTAssertEqual(outcome(of: "/products"), "fault")
        XCTAssertTrue(html.contains("const outcome = (entry) =>"), "the script colours later rows by the same rule")
    }

    /// On the server's machine the page is live at once, with the journal's filters (the script shows them).
    func testTheJournalIsLiveWithItsFilters() throws {
        let html = try page(["Host: 127.0.0.1"]).text
        XCTAssertTrue(html.contains("<section class=\"card\" id=\"requests\" data-journal=\"live\" data-limit=\"20\" "), html)
        XCTAssertTrue(html.contains("<form id=\"journal-filters\" class=\"controls\" hidden>\n<label>API <select name=\"api\">"
                                    + "<option value=\"\">any</option><option>threads</option><option>internproducts</option>"
                                    + "<option>wsuv</option><option>cse118</option><option>otp</option></select></label>"), html)
        XCTAssertTrue(html.contains("<label>status <select name=\"status\"><option value=\"\">any</option><option>2xx</option>"
                                    + "<option>3xx</option><option>4xx</option><option>5xx</option></select></label>"), html)
        XCTAssertTrue(html.contains("<label>path starts with <input name=\"path\" type=\"search\""), html)
        XCTAssertTrue(html.contains("fetch(`/_mock/requests?${query}`"), "the script asks the journal")
    }

    func testAtMostTwentyRequests() throws {
        for index in 1...25 { _ = try server.request("GET", "/api/messages/\(index)") }
        let html = try page(["Host: 127.0.0.1"]).text
        XCTAssertEqual(html.components(separatedBy: "<td class=\"path\">").count - 1, 20)
        XCTAssertTrue(html.contains("<code>/api/messages/25</code>"))
        XCTAssertTrue(html.contains("<code>/api/messages/6</code>"))
        XCTAssertFalse(html.contains("<code>/api/messages/5</code>"))
    }

    func testLastRequestsHiddenFromOtherMachines() throws {
        _ = try server.request("GET", "/api/threads")
        let hidden = app.respond("GET", "/", headers: [("Host", "192.0.2.1:8080")], from: "192.0.2.10")
        XCTAssertEqual(hidden.status, 200)
        let html = String(decoding: hidden.body, as: UTF8.self)
        XCTAssertTrue(html.contains("<h2>Last requests</h2>\n<p class=\"muted\">Shown only on the machine that runs the server"
                                    + " (open this page there as <code>http://localhost:8080/</code>)"), html)
        XCTAssertFalse(html.contains("/api/threads</code>"))
        XCTAssertTrue(html.contains("<code>a@a.com</code>"), "the accounts are public")

        let loopback = app.respond(to: Request(method: "GET", target: "/"))
        XCTAssertTrue(String(decoding: loopback.body, as: UTF8.self).contains(row("GET", "/api/threads", 401, "threads",
                                                                                  reason: "Authorization header missing; send `Authorization: BEARER &lt;token&gt;` with the token from logging in")))
    }

    /// The page asks for the token (its script keeps it); the HTML never holds it, even for a caller that sent it.
    func testWithAnAdminTokenThePageAsksForIt() throws {
        server = try TestServer(responder: MockApp(apis: apis, settings: AppSettings(adminToken: "s3cret")))
        _ = try server.request("GET", "/api/threads")
        let withoutToken = try page(["Host: 127.0.0.1"]).text
        XCTAssertTrue(withoutToken.contains("<section class=\"card\" id=\"requests\" data-journal=\"token\" data-limit=\"20\" "
                                            + "data-poll-ms=\"1000\" data-retry-ms=\"3000\">"), withoutToken)
        XCTAssertTrue(withoutToken.contains("<form id=\"journal-token\" class=\"controls\" hidden>\n<label>admin token <input "
                                            + "name=\"token\" type=\"password\" autocomplete=\"off\""), withoutToken)
        XCTAssertTrue(withoutToken.contains("shown only with the admin token the server was started with"), withoutToken)
        XCTAssertFalse(withoutToken.contains("/api/threads</code>"), "no rows without the token")
        XCTAssertTrue(withoutToken.contains("<p class=\"muted\" id=\"journal-note\" hidden>Newest first"), "nor a note on rows")

        let withToken = try page(["Host: 127.0.0.1", "X-Mock-Admin-Token: s3cret"]).text
        XCTAssertTrue(withToken.contains("data-journal=\"live\""), withToken)
        XCTAssertTrue(withToken.contains("<p class=\"muted\" id=\"journal-note\">Newest first"), withToken)
        XCTAssertTrue(withToken.contains(row("GET", "/api/threads", 401, "threads",
                                             reason: "Authorization header missing; send `Authorization: BEARER &lt;token&gt;` "
                                                + "with the token from logging in")), withToken)
        for html in [withoutToken, withToken] {
            XCTAssertFalse(html.contains("s3cret"), "nothing secret in the page")
            XCTAssertTrue(html.contains("<script>"))
        }
    }

    func testNoScriptWhereNobodyMayReadTheJournal() throws {
        var settings = AppSettings()
        settings.trustsLoopback = false
        let closed = try MockApp(apis: apis, settings: settings)
        let html = String(decoding: closed.respond(to: Request(method: "GET", target: "/")).body, as: UTF8.self)
        XCTAssertTrue(html.contains("<section class=\"card\" id=\"requests\">\n<h2>Last requests</h2>\n<p class=\"muted\">"
                                    + "Shown to nobody: the server was started with <code>--admin-require-token</code> and no "
                                    + "<code>--admin-token</code>.</p>\n</section>"), html)
        XCTAssertFalse(html.contains("<script>"))
        let remote = app.respond("GET", "/", headers: [("Host", "192.0.2.1:8080")], from: "192.0.2.10")
        XCTAssertFalse(String(decoding: remote.body, as: UTF8.self).contains("<script>"), "a token would not help")
    }

    func testJournalOff() throws {
        var settings = AppSettings()
        settings.journalCapacity = 0
        let app = try MockApp(apis: apis, settings: settings)
        let html = String(decoding: app.respond(to: Request(method: "GET", target: "/")).body, as: UTF8.self)
        XCTAssertTrue(html.contains("The request journal is off (<code>--journal 0</code>)."), html)
    }

    func testHeadAndOtherMethods() throws {
        let get = try page(["Host: 127.0.0.1"])
        let head = try page(["Host: 127.0.0.1"], method: "HEAD")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["Content-Type"], "text/html; charset=utf-8")
        XCTAssertEqual(head.headers["Content-Length"], String(get.body.count))
        XCTAssertEqual(head.body, [])

        let post = try page(["Host: 127.0.0.1", "Content-Length: 0"], method: "POST")
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.headers["Allow"], "GET, HEAD, OPTIONS")
        XCTAssertNil(post.headers["Access-Control-Allow-Origin"])
    }
}
