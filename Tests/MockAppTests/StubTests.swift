import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// Stubs (docs/admin.md#stubs) over real sockets: a folder of stub files, stubs added at run time,
/// what they match and answer, and where they show.
final class StubTests: XCTestCase {
    private var folder: URL!
    private var server: TestServer!

    /// Two files: `a-course.json` overrides a threads route and adds a new one; `b-more.json` a
    /// second stub for the same path (never reached: the first file's wins) and a file body.
    private static let courseStubs = #"""
    [
      {"request": {"method": "GET", "path": "/api/threads", "headers": {"X-Exercise": "2"}},
       "response": {"status": 200, "body": {"status": "ok", "threads": []}}},
      {"request": {"method": "GET", "path": "/api/v3/courses/{course_id}/grades", "query": {"term": "fall"}},
       "response": {"status": 202, "reason": "Grades Pending", "headers": {"X-Course": "{{path.course_id}}"},
                    "body": {"course": "{{path.course_id}}", "term": "{{query.term}}", "student": "{{query.student}}", "count": 3}}}
    ]
    """#
    private static let moreStubs = #"""
    [
      {"request": {"method": "*", "path": "/api/v3/courses/{course_id}/grades"}, "response": {"status": 404}},
      {"request": {"method": "POST", "path": "/api/v3/feedback", "body_contains": "\"rating\""},
       "response": {"status": 201, "body_file": "feedback.txt", "delay_ms": 200}}
    ]
    """#

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("stubs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.courseStubs.write(to: folder.appendingPathComponent("a-course.json"), atomically: true, encoding: .utf8)
        try Self.moreStubs.write(to: folder.appendingPathComponent("b-more.json"), atomically: true, encoding: .utf8)
        try "thanks for {{query.who}}\n".write(to: folder.appendingPathComponent("feedback.txt"), atomically: true, encoding: .utf8)
        let apis = try APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
        server = try TestServer(responder: MockApp(apis: apis, stubs: try StubSet.load(folder: folder, apis: apis)))
    }

    override func tearDownWithError() throws {
        server = nil
        try FileManager.default.removeItem(at: folder)
    }

    func testAStubOverridesACourseRouteOnlyWhenItsConditionsHold() throws {
        let stubbed = try server.request("GET", "/api/threads", headers: [("X-Exercise", "2")])
        XCTAssertEqual(stubbed.status, 200)
        XCTAssertEqual(stubbed.text, #"{"status":"ok","threads":[]}"#)
        XCTAssertEqual(stubbed.headers["Content-Type"], "application/json; charset=utf-8")
        XCTAssertEqual(stubbed.headers["Access-Control-Allow-Origin"], "*")
        let course = try server.request("GET", "/api/threads", headers: [("X-Exercise", "3")])
        XCTAssertEqual(course.status, 401, "another header value: the course API answers")
        XCTAssertEqual(course.text, #"{"status":"error","message":"Token not found."}"#)
    }

    func testSubstitutionsReasonHeadersAndFirstMatchWins() throws {
        let grades = try server.request("GET", "/api/v3/courses/CS%20101/grades?term=fall&student=J%C3%BCrgen+K")
        XCTAssertEqual(grades.status, 202)
        XCTAssertEqual(grades.reason, "Grades Pending")
        XCTAssertEqual(grades.headers["X-Course"], "CS 101")
        XCTAssertEqual(grades.text, #"{"course":"CS 101","term":"fall","student":"Jürgen K","count":3}"#)
        let quoted = try server.request("GET", #"/api/v3/courses/a%22b/grades?term=fall"#)
        XCTAssertEqual(quoted.text, #"{"course":"a\"b","term":"fall","student":"","count":3}"#, "values are escaped in JSON")
        let otherTerm = try server.request("GET", "/api/v3/courses/7/grades?term=spring")
        XCTAssertEqual(otherTerm.status, 404, "the query condition fails: the next file's stub answers")
        XCTAssertEqual(otherTerm.text, "")
    }

    func testBodyConditionFileBodyAndDelay() throws {
        let started = Date()
        let thanks = try server.request("POST", "/api/v3/feedback?who=Ana", body: #"{"rating":5}"#)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.2)
        XCTAssertEqual(thanks.status, 201)
        XCTAssertEqual(thanks.text, "thanks for Ana\n")
        XCTAssertEqual(thanks.headers["Content-Type"], "text/plain; charset=utf-8")
        let preflight = try server.request("OPTIONS", "/api/v3/feedback")
        XCTAssertEqual(preflight.status, 204, "a browser may call an endpoint only a stub serves")
        XCTAssertEqual(preflight.headers["Access-Control-Allow-Methods"], "POST, OPTIONS")
        XCTAssertEqual(preflight.headers["Access-Control-Allow-Origin"], "*")
        let unmatched = try server.request("POST", "/api/v3/feedback", body: #"{"score":5}"#)
        XCTAssertEqual(unmatched.status, 404)
        XCTAssertTrue(unmatched.text.hasPrefix(#"{"error":"not_found","path":"/api/v3/feedback""#), unmatched.text)
    }

    func testStubsAddedAtRunTimeComeFirstAndResetRemovesThem() throws {
        let added = try server.request("PUT", "/_mock/stubs", body: #"""
        {"request": {"method": "GET", "path": "/api/v3/courses/{id}/grades"}, "response": {"status": 503, "body": "down"}}
        """#)
        XCTAssertEqual(added.status, 200)
        XCTAssertEqual(added.text, #"[{"source":"PUT /_mock/stubs $","method":"GET","path":"/api/v3/courses/{id}/grades","status":503,"overrides":[]}]"#)
        XCTAssertEqual(try server.request("GET", "/api/v3/courses/1/grades?term=fall").text, "down")
        let listed = try JSONParser.parse(try server.request("GET", "/_mock/stubs").body).arrayValue ?? []
        XCTAssertEqual(listed.count, 5)
        XCTAssertEqual(listed[1].objectValue?["overrides"], .array([.string("threads GET /api/threads")]))
        XCTAssertEqual(listed[1].objectValue?["source"]?.stringValue, folder.appendingPathComponent("a-course.json").path + ":2:3")
        XCTAssertEqual(try server.request("POST", "/_mock/reset").status, 200)
        XCTAssertEqual(try server.request("GET", "/api/v3/courses/1/grades?term=fall").status, 202, "the folder's stub again")
        _ = try server.request("PUT", "/_mock/stubs", body: #"{"request":{"method":"*","path":"/x"},"response":{"status":204}}"#)
        XCTAssertEqual(try server.request("DELETE", "/x").status, 204)
        XCTAssertEqual(try server.request("POST", "/_mock/reset/stubs").text, #"{"reset":["stubs"]}"#)
        XCTAssertEqual(try server.request("DELETE", "/x").status, 404)
    }

    func testABrokenStubChangesNothing() throws {
        let refused = try server.request("PUT", "/_mock/stubs", body: #"""
        [{"request": {"method": "GET", "path": "/ok"}, "response": {"status": 200}},
         {"request": {"method": "GET", "path": "/bad"}, "response": {"status": "200"}}]
        """#)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.text, #"{"error":"invalid_stub","path":"$[1].response.status","detail":"expected an integer"}"#)
        XCTAssertEqual(try server.request("GET", "/ok").status, 404)
    }

    /// A value a request brings into a header (`{{query.to}}`, `{{path.where}}`) comes back with its
    /// line breaks and other controls percent-encoded: decoded as they are, `%0D%0A` let any client
    /// write header lines, or a second answer, of its own (found by the session-6 hostile-input hunt).
    func testATemplatedHeaderValueCannotAddHeaderLinesOrAnswers() throws {
        _ = try server.request("PUT", "/_mock/stubs", body: #"""
        {"request": {"method": "GET", "path": "/go/{where}"},
         "response": {"status": 302, "headers": {"Location": "/next?to={{query.to}}", "X-Where": "{{path.where}}"}}}
        """#)
        let client = try server.connect()
        client.send("GET /go/a%0D%0ASet-Cookie:%20p=1%09%7F?to=x%0D%0AContent-Length:%200%0D%0A%0D%0AHTTP/1.1%20200%20OK%00 HTTP/1.1\r\n"
                    + "Host: test\r\nConnection: close\r\n\r\n")
        let head = String(decoding: client.readToEnd(), as: UTF8.self).components(separatedBy: "\r\n")
        XCTAssertEqual(Array(head.prefix(3)), [
            "HTTP/1.1 302 Found",
            "Location: /next?to=x%0D%0AContent-Length: 0%0D%0A%0D%0AHTTP/1.1 200 OK%00",
            "X-Where: a%0D%0ASet-Cookie: p=1\t%7F",
        ])
        XCTAssertEqual(head.filter { $0.hasPrefix("Content-Length:") }, ["Content-Length: 0"])
    }

    /// A stub's own header names and values, and its reason, are written into the head as they are,
    /// so a file or PUT that would break a line is refused where it is.
    func testAStubWhoseHeadersOrReasonWouldBreakTheHeadIsRefused() throws {
        for (response, path, detail) in [
            (#"{"status":200,"headers":{"X-A":"one\r\nX-B: two"}}"#, "$.response.headers.X-A",
             "holds a line break or another control character, which would end the header line"),
            (#"{"status":200,"headers":{"X A":"one"}}"#, "$.response.headers",
             "`X A` is not a header name (letters, digits and !#$%&'*+-.^_`|~)"),
            (#"{"status":200,"headers":{"":"one"}}"#, "$.response.headers",
             "`` is not a header name (letters, digits and !#$%&'*+-.^_`|~)"),
            (#"{"status":200,"reason":"OK\nX-B: two"}"#, "$.response.reason",
             "holds a line break or another control character, which would end the header line"),
        ] {
            let refused = try server.request("PUT", "/_mock/stubs", body: #"{"request":{"method":"GET","path":"/h"},"response":\#(response)}"#)
            XCTAssertEqual(refused.status, 400, response)
            XCTAssertEqual(try JSONParser.parse(refused.body).objectValue?["path"]?.stringValue, path, response)
            XCTAssertEqual(try JSONParser.parse(refused.body).objectValue?["detail"]?.stringValue, detail, response)
        }
        XCTAssertEqual(try server.request("GET", "/h").status, 404)
        let tabbed = try server.request("PUT", "/_mock/stubs", body: #"{"request":{"method":"GET","path":"/h"},"response":{"status":200,"headers":{"X-A":"a\tb"}}}"#)
        XCTAssertEqual(tabbed.status, 200, tabbed.text)
        XCTAssertEqual(try server.request("GET", "/h").headers["X-A"], "a\tb")
    }

    func testStubsShowInTheJournalIndexPageAndOpenAPIAndTakeFaults() throws {
        _ = try server.request("GET", "/api/v3/courses/9/grades?term=fall")
        XCTAssertEqual(try server.lastJournalEntry()["api"]?.stringValue, "stubs")
        let page = try server.request("GET", "/").text
        XCTAssertTrue(page.contains("<code>GET /api/threads</code><br><span class=\"override\">overrides <code>threads GET /api/threads</code></span>"), page)
        XCTAssertTrue(page.contains("<code>POST /api/v3/feedback</code></td><td>201</td>"))
        let document = try JSONParser.parse(try server.request("GET", "/_mock/openapi/stubs.json").body)
        let paths = document.objectValue?["paths"]?.objectValue
        XCTAssertEqual(paths?.keys, ["/api/threads", "/api/v3/courses/{course_id}/grades", "/api/v3/feedback"])
        XCTAssertEqual(try server.request("PUT", "/_mock/faults", body: #"{"error_status":500,"apis":["stubs"]}"#).status, 200)
        let failed = try server.request("GET", "/api/v3/courses/9/grades?term=fall")
        XCTAssertEqual(failed.status, 500)
        XCTAssertEqual(failed.text, #"{"error":"injected_fault","status":500}"#)
        XCTAssertEqual(try server.request("GET", "/api/threads").status, 401, "course APIs are not in that rule")
    }

    func testABrokenStubFileIsReportedWithItsPlace() throws {
        let file = folder.appendingPathComponent("c-broken.json")
        try "[\n  {\"request\": {\"method\": \"GET\", \"path\": \"/x\"},\n   \"response\": {\"status\": 200, \"body\": \"{{path.id}}\"}}\n]\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let apis = try APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
        XCTAssertThrowsError(try StubSet.load(folder: folder, apis: apis)) { error in
            XCTAssertEqual("\(error)", "\(file.path):3:16: $[0].response: {{path.id}}: the path /x has no {id}")
        }
        try "[\n  {\"request\": {\"method\": \"GET\" \"path\": \"/x\"}}\n]\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try StubSet.load(folder: folder, apis: apis)) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(file.path):2:32: not valid JSON: expected ',' or '}'"), "\(error)")
        }
    }
}
