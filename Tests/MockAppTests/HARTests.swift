import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// `GET /_mock/requests.har` and the journal's `body` filter (docs/admin.md#the-journal-as-har).
final class HARTests: XCTestCase {
    private var server: TestServer!
    private var folder: URL!
    private static let pixel: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0x01]

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.pixel).write(to: folder.appendingPathComponent("pixel.png"))
        try Data(#"{"request":{"method":"GET","path":"/pixel"},"response":{"status":200,"headers":{"Content-Type":"image/png"},"body_file":"pixel.png"}}"#.utf8)
            .write(to: folder.appendingPathComponent("pixel.json"))
        let apis = try APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
        server = try TestServer(responder: MockApp(apis: apis, stubs: try StubSet.load(folder: folder, apis: apis)))
    }

    override func tearDownWithError() throws {
        server = nil
        try FileManager.default.removeItem(at: folder)
    }

    private func har(_ query: String = "") throws -> (ClientResponse, JSONObject) {
        let response = try server.request("GET", "/_mock/requests.har" + query)
        XCTAssertEqual(response.status, 200, response.text)
        return (response, try XCTUnwrap(try JSONParser.parse(response.body).objectValue?["log"]?.objectValue))
    }

    func testTheJournalAsHARKeepsBodiesTypesAndOrder() throws {
        let form = [("Content-Type", "application/x-www-form-urlencoded")]
        _ = try server.request("POST", "/api/login", headers: form, body: "email=a@a.com&password=test123")
        _ = try server.request("GET", "/api/threads?page=2&q=a%20b")
        _ = try server.request("POST", "/api/message/add", headers: [("Content-Type", "application/octet-stream")], body: [0xff, 0xfe, 0x00])
        _ = try server.request("GET", "/pixel")
        let long = String(repeating: "x", count: 5000)
        _ = try server.request("POST", "/api/thread/add", headers: form, body: "title=" + long)

        let (response, log) = try har()
        XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8")
        XCTAssertEqual(response.headers["Content-Disposition"], #"attachment; filename="mock-backend.har""#)
        XCTAssertEqual(response.headers["X-Total-Count"], "5")
        XCTAssertEqual(Self.problems(of: log), [])
        XCTAssertEqual(log["version"], .string("1.2"))
        XCTAssertEqual(log["creator"]?.objectValue?["name"], .string("mock-backend"))
        let entries = try XCTUnwrap(log["entries"]?.arrayValue?.compactMap(\.objectValue))
        XCTAssertEqual(entries.map { $0["request"]?.objectValue?["url"]?.stringValue ?? "" }, [
            "http://127.0.0.1:\(server.port)/api/login", "http://127.0.0.1:\(server.port)/api/threads?page=2&q=a%20b",
            "http://127.0.0.1:\(server.port)/api/message/add", "http://127.0.0.1:\(server.port)/pixel",
            "http://127.0.0.1:\(server.port)/api/thread/add",
        ], "oldest first")

        let login = try XCTUnwrap(entries[0]["request"]?.objectValue)
        XCTAssertEqual(login["postData"], .object(JSONObject([
            ("mimeType", .string("application/x-www-form-urlencoded")), ("text", .string("email=a@a.com&password=test123")),
        ])))
        XCTAssertEqual(login["bodySize"]?.intValue, 30)
        let loginAnswer = try XCTUnwrap(entries[0]["response"]?.objectValue)
        XCTAssertEqual(loginAnswer["status"]?.intValue, 200)
        XCTAssertEqual(loginAnswer["statusText"], .string("OK"))
        XCTAssertEqual(loginAnswer["content"]?.objectValue?["mimeType"], .string("application/json; charset=utf-8"))
        XCTAssertTrue(loginAnswer["content"]?.objectValue?["text"]?.stringValue?.hasPrefix(#"{"status":"ok","token":"#) == true)

        let listing = try XCTUnwrap(entries[1]["request"]?.objectValue)
        XCTAssertEqual(listing["queryString"], .array([
            .object(JSONObject([("name", .string("page")), ("value", .string("2"))])),
            .object(JSONObject([("name", .string("q")), ("value", .string("a b"))])),
        ]))
        XCTAssertNil(listing["postData"], "no body, no postData")
        XCTAssertEqual(entries[1]["response"]?.objectValue?["status"]?.intValue, 401)
        XCTAssertNotNil(entries[1]["comment"]?.stringValue, "the reason rides as the entry's comment")

        XCTAssertEqual(entries[2]["request"]?.objectValue?["postData"], .object(JSONObject([
            ("mimeType", .string("application/octet-stream")), ("text", .string("//4A")), ("_encoding", .string("base64")),
        ])))
        XCTAssertEqual(entries[3]["response"]?.objectValue?["content"], .object(JSONObject([
            ("size", .number("7")), ("mimeType", .string("image/png")), ("text", .string(Data(Self.pixel).base64EncodedString())),
            ("encoding", .string("base64")),
        ])))
        let cut = try XCTUnwrap(entries[4]["request"]?.objectValue?["postData"]?.objectValue)
        XCTAssertEqual(cut["text"]?.stringValue?.utf8.count, 4096)
        XCTAssertEqual(cut["comment"], .string("the first 4096 of 5006 bytes (the journal keeps 4 KiB of each body)"))

        // The journal's filters apply.
        let (filtered, only) = try har("?method=POST&status=4xx")
        XCTAssertEqual(filtered.headers["X-Total-Count"], "2")
        XCTAssertEqual(only["entries"]?.arrayValue?.count, 2)
        XCTAssertEqual(try server.request("GET", "/_mock/requests.har?status=teapot").status, 400)
    }

    /// "The app posted this message once": the `body` filter with `X-Total-Count`.
    func testTheBodyFilterFindsWhatTheAppPosted() throws {
        let login = try server.request("POST", "/api/login", body: "email=a@a.com&password=test123")
        let token = try XCTUnwrap(try JSONParser.parse(login.body).objectValue?["token"]?.stringValue)
        for message in ["Hello+there", "Lunch%3F", "Hello+again"] {
            _ = try server.request("POST", "/api/message/add", headers: [("Authorization", "Bearer \(token)")],
                                   body: "thread_id=1&message=\(message)")
        }
        let once = try server.request("GET", "/_mock/requests?body=message%3DLunch")
        XCTAssertEqual(once.headers["X-Total-Count"], "1")
        XCTAssertEqual(try JSONParser.parse(once.body).arrayValue?.first?.objectValue?["request_body"],
                       .string("thread_id=1&message=Lunch%3F"))
        XCTAssertEqual(try server.request("GET", "/_mock/requests?body=Hello&limit=0").headers["X-Total-Count"], "2")
        XCTAssertEqual(try server.request("GET", "/_mock/requests?body=Goodbye").text, "[]")
        XCTAssertEqual(try har("?body=test123").0.headers["X-Total-Count"], "1")
    }

    /// What HAR 1.2 requires of a log (http://www.softwareishard.com/blog/har-12-spec/): every
    /// required field present with its type; empty when the log is valid.
    static func problems(of log: JSONObject) -> [String] {
        var problems: [String] = []
        func require(_ object: JSONObject?, _ where_: String, strings: [String] = [], numbers: [String] = [],
                     arrays: [String] = [], objects: [String] = []) {
            guard let object else { return problems.append("\(where_) is missing") }
            for key in strings where object[key]?.stringValue == nil { problems.append("\(where_).\(key) is not a string") }
            for key in numbers where object[key]?.doubleValue == nil { problems.append("\(where_).\(key) is not a number") }
            for key in arrays where object[key]?.arrayValue == nil { problems.append("\(where_).\(key) is not an array") }
            for key in objects where object[key]?.objectValue == nil { problems.append("\(where_).\(key) is not an object") }
        }
        func requirePairs(_ list: JSONValue?, _ where_: String) {
            for (index, pair) in (list?.arrayValue ?? []).enumerated() {
                require(pair.objectValue, "\(where_)[\(index)]", strings: ["name", "value"])
            }
        }
        require(log, "log", strings: ["version"], arrays: ["entries"], objects: ["creator"])
        require(log["creator"]?.objectValue, "log.creator", strings: ["name", "version"])
        for (index, value) in (log["entries"]?.arrayValue ?? []).enumerated() {
            let at = "entries[\(index)]"
            let entry = value.objectValue
            require(entry, at, strings: ["startedDateTime"], numbers: ["time"], objects: ["request", "response", "cache", "timings"])
            if let started = entry?["startedDateTime"]?.stringValue, ServerClock.instant(started) == nil {
                problems.append("\(at).startedDateTime is not ISO 8601")
            }
            let request = entry?["request"]?.objectValue
            require(request, at + ".request", strings: ["method", "url", "httpVersion"], numbers: ["headersSize", "bodySize"],
                    arrays: ["cookies", "headers", "queryString"])
            requirePairs(request?["headers"], at + ".request.headers")
            requirePairs(request?["queryString"], at + ".request.queryString")
            if let postData = request?["postData"] {
                require(postData.objectValue, at + ".request.postData", strings: ["mimeType", "text"])
            }
            let response = entry?["response"]?.objectValue
            require(response, at + ".response", strings: ["statusText", "httpVersion", "redirectURL"],
                    numbers: ["status", "headersSize", "bodySize"], arrays: ["cookies", "headers"], objects: ["content"])
            requirePairs(response?["headers"], at + ".response.headers")
            require(response?["content"]?.objectValue, at + ".response.content", strings: ["mimeType"], numbers: ["size"])
            let timings = entry?["timings"]?.objectValue
            require(timings, at + ".timings", numbers: ["send", "wait", "receive"])
            for key in ["send", "wait", "receive"] where (timings?[key]?.doubleValue ?? 0) < 0 {
                problems.append("\(at).timings.\(key) is negative")
            }
        }
        return problems
    }
}
