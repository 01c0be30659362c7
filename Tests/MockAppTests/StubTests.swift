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
    private var stubs: StubSet!
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
    /// A retry exercise: an error, a rate limit, then success, over and over.
    private static let sequenceStubs = #"""
    {"request": {"method": "POST", "path": "/api/v3/submit"},
     "responses": [{"status": 500, "body": {"error": "try again"}}, {"status": 429, "headers": {"Retry-After": "1"}},
                   {"status": 201, "body": {"stored": true}}],
     "then": "repeat"}
    """#

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("stubs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.courseStubs.write(to: folder.appendingPathComponent("a-course.json"), atomically: true, encoding: .utf8)
        try Self.moreStubs.write(to: folder.appendingPathComponent("b-more.json"), atomically: true, encoding: .utf8)
        try Self.sequenceStubs.write(to: folder.appendingPathComponent("c-sequence.json"), atomically: true, encoding: .utf8)
        try "thanks for {{query.who}}\n".write(to: folder.appendingPathComponent("feedback.txt"), atomically: true, encoding: .utf8)
        let apis = try APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
        stubs = try StubSet.load(folder: folder, apis: apis)
        server = try TestServer(responder: MockApp(apis: apis, stubs: stubs))
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
        XCTAssertEqual(listed.count, 6)
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
        XCTAssertEqual(paths?.keys, ["/api/threads", "/api/v3/courses/{course_id}/grades", "/api/v3/feedback", "/api/v3/submit"])
        let submit = paths?["/api/v3/submit"]?.objectValue?["post"]?.objectValue?["responses"]?.objectValue
        XCTAssertEqual(submit?.keys, ["201", "429", "500"], "every answer of a sequence")
        XCTAssertEqual(try server.request("PUT", "/_mock/faults", body: #"{"error_status":500,"apis":["stubs"]}"#).status, 200)
        let failed = try server.request("GET", "/api/v3/courses/9/grades?term=fall")
        XCTAssertEqual(failed.status, 500)
        XCTAssertEqual(failed.text, #"{"error":"injected_fault","status":500}"#)
        XCTAssertEqual(try server.request("GET", "/api/threads").status, 401, "course APIs are not in that rule")
    }

    func testABrokenStubFileIsReportedWithItsPlace() throws {
        let file = folder.appendingPathComponent("d-broken.json")
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

    // MARK: Sequences, path_regex, body_json

    func testASequenceGivesItsAnswersInTurnAndResetStartsItOver() throws {
        func submit() throws -> ClientResponse { try server.request("POST", "/api/v3/submit", body: "{}") }
        let first = try submit()
        XCTAssertEqual(first.status, 500)
        XCTAssertEqual(first.text, #"{"error":"try again"}"#)
        let second = try submit()
        XCTAssertEqual(second.status, 429)
        XCTAssertEqual(second.headers["Retry-After"], "1")
        XCTAssertEqual(try server.lastJournalEntry()["reason"]?.stringValue,
                       "stub answer 2 of 3 of POST /api/v3/submit (\(folder.appendingPathComponent("c-sequence.json").path):1:1)")
        let listed = try JSONParser.parse(try server.request("GET", "/_mock/stubs").body).arrayValue?.last?.objectValue
        XCTAssertEqual(listed?["statuses"], .array([.number("500"), .number("429"), .number("201")]))
        XCTAssertEqual(listed?["then"], .string("repeat"))
        XCTAssertEqual(listed?["next"], .number("2"))
        XCTAssertTrue(try server.request("GET", "/").text.contains("<td>500, 429, 201, then again from the first</td>"))
        XCTAssertEqual(try submit().text, #"{"stored":true}"#)
        XCTAssertEqual(try submit().status, 500, "then: repeat starts from the first again")
        XCTAssertEqual(try server.request("DELETE", "/_mock/stubs").status, 204)
        XCTAssertEqual(try submit().status, 429, "removing the stubs added at run time leaves the folder's count")
        XCTAssertEqual(try server.request("POST", "/_mock/reset").status, 200)
        XCTAssertEqual(try submit().status, 500, "a reset starts every sequence over")
        XCTAssertEqual(try server.request("POST", "/_mock/reset/stubs").status, 200)
        XCTAssertEqual(try submit().status, 500, "and so does a reset of the stubs alone")
        XCTAssertEqual(try server.request("PUT", "/_mock/faults", body: #"{"error_status":503,"apis":["stubs"]}"#).status, 200)
        XCTAssertEqual(try submit().status, 503)
        XCTAssertEqual(try server.request("DELETE", "/_mock/faults").status, 204)
        XCTAssertEqual(try submit().status, 429, "an answer a fault took the place of is not counted")
        try stubs.reloadFolder()
        XCTAssertEqual(try submit().status, 500, "the folder read again (--watch) starts its sequences over")
    }

    /// Requests that arrive together each take their own turn: the count is kept under the set's lock.
    func testTheLastAnswerRepeatsAndConcurrentRequestsEachTakeOneTurn() throws {
        let added = try server.request("PUT", "/_mock/stubs", body: #"""
        {"request": {"method": "GET", "path": "/api/v3/flaky"},
         "responses": [{"status": 503}, {"status": 503}, {"status": 503}, {"status": 200, "body": "up"}]}
        """#)
        XCTAssertEqual(added.text, #"[{"source":"PUT /_mock/stubs $","method":"GET","path":"/api/v3/flaky","statuses":[503,503,503,200],"#
                       + #""then":"last","next":0,"overrides":[]}]"#)
        let statuses = Locked([Int]())
        let port = server.port
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let status = (try? httpRequest(port: port, "GET", "/api/v3/flaky").status) ?? 0
            statuses.withLock { $0.append(status) }
        }
        XCTAssertEqual(statuses.withLock { $0.sorted() }, Array(repeating: 200, count: 13) + [503, 503, 503])
        XCTAssertEqual(try server.request("GET", "/api/v3/flaky").text, "up", "the last answer again")
    }

    func testAPathRegexMatchesTheWholePathAndItsGroupsFillTheAnswer() throws {
        let added = try server.request("PUT", "/_mock/stubs", body: #"""
        {"request": {"method": "GET", "path_regex": "/api/v3/items/([0-9]+)(/details)?"},
         "response": {"status": 200, "headers": {"X-Item": "{{path.1}}"}, "body": {"id": "{{path.1}}", "more": "{{path.2}}"}}}
        """#)
        XCTAssertEqual(added.text, #"[{"source":"PUT /_mock/stubs $","method":"GET","path_regex":"/api/v3/items/([0-9]+)(/details)?","#
                       + #""status":200,"overrides":[]}]"#)
        let item = try server.request("GET", "/api/v3/items/42")
        XCTAssertEqual(item.text, #"{"id":"42","more":""}"#)
        XCTAssertEqual(item.headers["X-Item"], "42")
        XCTAssertEqual(try server.request("GET", "/api/v3/items/42/details?x=1").text, #"{"id":"42","more":"/details"}"#)
        for path in ["/api/v3/items/x", "/api/v3/items/42/", "/v1/api/v3/items/42", "/api/v3/items/42/detailsX"] {
            XCTAssertEqual(try server.request("GET", path).status, 404, "the whole path must match: \(path)")
        }
        XCTAssertEqual(try server.request("POST", "/api/v3/items/42").status, 404)
        XCTAssertEqual(try server.request("OPTIONS", "/api/v3/items/7").headers["Access-Control-Allow-Methods"], "GET, OPTIONS")
        XCTAssertTrue(try server.request("GET", "/").text.contains("<code>GET ~ /api/v3/items/([0-9]+)(/details)?</code>"))
        let longPath = "/api/v3/items/" + String(repeating: "7", count: 7_000)
        XCTAssertEqual(try server.request("GET", longPath).headers["X-Item"]?.count, 7_000, "a long path is no trouble for a plain pattern")
    }

    /// A pattern that backtracks without end on some path (`(a+)+` before a character it lacks)
    /// is stopped after a bounded amount of work: no match, the 404 says why, and the server goes on
    /// answering.
    func testAPathRegexThatBacktracksForeverGivesUpInsteadOfHanging() throws {
        _ = try server.request("PUT", "/_mock/stubs", body: #"{"request":{"method":"GET","path_regex":"/(a+)+"},"response":{"status":200}}"#)
        let hostile = try server.request("GET", "/" + String(repeating: "a", count: 48) + "!")
        XCTAssertEqual(hostile.status, 404)
        XCTAssertEqual(try server.lastJournalEntry()["reason"]?.stringValue,
                       "no API serves this path, and the stub GET ~ /(a+)+ (PUT /_mock/stubs $) almost matched: its path_regex gave up "
                       + "on this path after too much backtracking (a repetition of a repetition, such as (a+)+, does that; write it without)")
        XCTAssertEqual(try server.request("GET", "/aaaa").status, 200)
    }

    func testABodyJSONConditionMatchesMembersByValue() throws {
        _ = try server.request("PUT", "/_mock/stubs", body: #"""
        {"request": {"method": "POST", "path": "/api/v3/login", "body_json": {"username": "alice", "profile": {"age": 30}, "tags": [1, "a"]}},
         "response": {"status": 200, "body": {"token": "alice-token"}}}
        """#)
        let body = #"{"password":"x","username":"alice","profile":{"age":30.0,"city":"Pullman"},"tags":[1e0,"a"]}"#
        XCTAssertEqual(try server.request("POST", "/api/v3/login", body: body).text, #"{"token":"alice-token"}"#,
                       "more members are fine, numbers compare by value")
        XCTAssertTrue(try server.request("GET", "/_mock/stubs").text.hasPrefix(#"[{"source":"PUT /_mock/stubs $","method":"POST","path":"/api/v3/login","#
                                                                           + #""body_json":{"username":"alice","profile":{"age":30},"tags":[1,"a"]},"status":200,"#))
        let misses: [(body: String, missed: String)] = [
            (#"{"username":"bob"}"#, #"its JSON body needs {"username":"alice"}, not "bob""#),
            (#"{"username":"alice","profile":{"age":31},"tags":[1,"a"]}"#, #"its JSON body needs {"profile":{"age":30}}, not {"age":31}"#),
            (#"{"username":"alice","profile":{"age":30},"tags":[1,"a",2]}"#, #"its JSON body needs {"tags":[1,"a"]}, not [1,"a",2]"#),
            (#"{"user":"alice"}"#, #"its JSON body needs {"username":"alice"}; the body has no username"#),
            ("username=alice", #"its JSON body needs {"username":"alice"}; the body is not a JSON object"#),
        ]
        for (body, missed) in misses {
            let refused = try server.request("POST", "/api/v3/login", body: body)
            XCTAssertEqual(refused.status, 404, body)
            XCTAssertEqual(try server.lastJournalEntry()["reason"]?.stringValue,
                           "no API serves this path, and the stub POST /api/v3/login (PUT /_mock/stubs $) almost matched: \(missed)", body)
        }
    }

    func testABadSequencePatternOrBodyConditionIsRefusedWithItsPlace() throws {
        let long = String(repeating: "a", count: 513)
        let refusals: [(stub: String, path: String, detail: String)] = [
            (#"{"request":{"method":"GET","path_regex":"/(unclosed"},"response":{"status":200}}"#, "$.request.path_regex",
             "not a valid regular expression (ICU syntax, as NSRegularExpression reads it)"),
            (#"{"request":{"method":"GET","path_regex":"/a)(b"},"response":{"status":200}}"#, "$.request.path_regex",
             "not a valid regular expression (ICU syntax, as NSRegularExpression reads it)"),
            (#"{"request":{"method":"GET","path_regex":"\#(long)"},"response":{"status":200}}"#, "$.request.path_regex",
             "a pattern of 513 characters; at most 512"),
            (#"{"request":{"method":"GET","path_regex":""},"response":{"status":200}}"#, "$.request.path_regex",
             "expected a regular expression, not an empty string"),
            (#"{"request":{"method":"GET","path":"/a","path_regex":"/a"},"response":{"status":200}}"#, "$.request",
             "give path or path_regex, not both"),
            (#"{"request":{"method":"GET"},"response":{"status":200}}"#, "$.request",
             "expected path (with {name} for a parameter) or path_regex"),
            (#"{"request":{"method":"GET","path_regex":"/(a)"},"response":{"status":200,"body":"{{path.2}}"}}"#, "$.response",
             "{{path.2}}: the path_regex has 1 capture groups ({{path.1}} for the first)"),
            (#"{"request":{"method":"GET","path":"/a"},"response":{"status":200},"responses":[{"status":200}]}"#, "$",
             "give response or responses (answers in turn), not both"),
            (#"{"request":{"method":"GET","path":"/a"}}"#, "$", "expected response, or responses (answers in turn)"),
            (#"{"request":{"method":"GET","path":"/a"},"responses":[]}"#, "$.responses", "expected from 1 to 100 answers, given in turn"),
            (#"{"request":{"method":"GET","path":"/a"},"responses":[{"status":200},{"status":"x"}]}"#, "$.responses[1].status",
             "expected an integer"),
            (#"{"request":{"method":"GET","path":"/a/{id}"},"responses":[{"status":200},{"status":200,"body":"{{path.ID}}"}]}"#,
             "$.responses[1]", "{{path.ID}}: the path /a/{id} has no {ID}"),
            (#"{"request":{"method":"GET","path":"/a"},"response":{"status":200},"then":"repeat"}"#, "$.then",
             "then goes with responses, a sequence of answers"),
            (#"{"request":{"method":"GET","path":"/a"},"responses":[{"status":200}],"then":"again"}"#, "$.then",
             #"expected "last" (the last answer again, the default) or "repeat" (from the first again)"#),
            (#"{"request":{"method":"POST","path":"/a","body_json":{}},"response":{"status":200}}"#, "$.request.body_json",
             #"expected the members the JSON body must have, such as {"username":"alice"}"#),
            (#"{"request":{"method":"POST","path":"/a","body_json":"alice"},"response":{"status":200}}"#, "$.request.body_json",
             "expected an object"),
        ]
        for (stub, path, detail) in refusals {
            let refused = try server.request("PUT", "/_mock/stubs", body: stub)
            XCTAssertEqual(refused.status, 400, stub)
            let answer = try JSONParser.parse(refused.body).objectValue
            XCTAssertEqual(answer?["path"]?.stringValue, path, stub)
            XCTAssertEqual(answer?["detail"]?.stringValue, detail, stub)
        }
        XCTAssertEqual(try JSONParser.parse(try server.request("GET", "/_mock/stubs").body).arrayValue?.count, 5, "nothing was added")
    }
}
