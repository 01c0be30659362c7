import Foundation
import MockHTTP
import MockApp
import MockKit
import TestSupport
import XCTest

/// `/_mock/clock` and `--random-seed` over real sockets (docs/admin.md#the-clock-and-random-values).
final class ClockTests: XCTestCase {
    private static let start = ServerClock.instant("2024-09-01T10:00:00Z")!

    private func clockText(_ server: TestServer, _ method: String = "GET", body: String = "") throws -> String {
        try server.request(method, "/_mock/clock", body: body).text
    }

    func testTheClockStandsMovesAndShowsInTheDateHeader() throws {
        let server = try TestServer(apis: ["threads"], clock: ServerClock(standingAt: Self.start))
        let first = try server.request("GET", "/_mock/clock")
        XCTAssertEqual(first.text, #"{"now":"2024-09-01T10:00:00Z","frozen":true}"#)
        XCTAssertEqual(first.headers["Date"], "Sun, 01 Sep 2024 10:00:00 GMT")
        XCTAssertTrue(try server.request("GET", "/").text.contains("Clock: stands still at <strong>2024-09-01T10:00:00Z</strong>"))
        XCTAssertEqual(try server.request("GET", "/api/threads").headers["Date"], "Sun, 01 Sep 2024 10:00:00 GMT")

        let advanced = try server.request("POST", "/_mock/clock", body: #"{"advance_seconds":601}"#)
        XCTAssertEqual(advanced.text, #"{"now":"2024-09-01T10:10:01Z","frozen":true}"#)
        XCTAssertEqual(advanced.headers["Date"], "Sun, 01 Sep 2024 10:10:01 GMT")
        XCTAssertEqual(try clockText(server, "POST", body: #"{"advance_seconds":0.25}"#),
                       #"{"now":"2024-09-01T10:10:01.250Z","frozen":true}"#)
        XCTAssertEqual(try clockText(server, "POST", body: #"{"set":"2025-01-01T01:00:00+01:00"}"#),
                       #"{"now":"2025-01-01T00:00:00Z","frozen":true}"#)
        // Back past stamps already given: only `set` may.
        XCTAssertEqual(try clockText(server, "POST", body: #"{"set":"2020-02-29T23:59:59.5Z"}"#),
                       #"{"now":"2020-02-29T23:59:59.500Z","frozen":true}"#)

        let refusals: [(String, String)] = [
            (#"{"advance_seconds":-1}"#, "advance_seconds must be a number of seconds, 0 or more; use set to move the clock back"),
            (#"{"advance_seconds":"60"}"#, "advance_seconds must be a number"),
            (#"{"set":"2025-01-01 00:00:00"}"#, "set must be an RFC 3339 instant such as 2025-01-01T00:00:00Z"),
            (#"{"set":"2025-02-30T00:00:00Z"}"#, "set must be an RFC 3339 instant such as 2025-01-01T00:00:00Z"),
            (#"{"set":"1969-12-31T23:59:59Z"}"#, "set must be an instant from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"),
            (#"{"advance_seconds":1e12}"#, "the clock would pass 9999-12-31T23:59:59Z, the latest instant it can show"),
            (#"{"set":"2025-01-01T00:00:00Z","advance_seconds":1}"#,
             #"send {"advance_seconds":601} or {"set":"2025-01-01T00:00:00Z"}"#),
            (#"{"speed":2}"#, #"unknown field speed: send {"advance_seconds":601} or {"set":"2025-01-01T00:00:00Z"}"#),
            ("601", #"the body must be a JSON object: send {"advance_seconds":601} or {"set":"2025-01-01T00:00:00Z"}"#),
        ]
        for (body, detail) in refusals {
            let response = try server.request("POST", "/_mock/clock", body: body)
            XCTAssertEqual(response.status, 400, body)
            XCTAssertEqual(try JSONParser.parse(response.body), .object(JSONObject([
                ("error", .string("invalid_clock")), ("detail", .string(detail)),
            ])), body)
        }
        XCTAssertEqual(try clockText(server), #"{"now":"2020-02-29T23:59:59.500Z","frozen":true}"#, "a refused move moves nothing")

        // DELETE: the wall clock again, however far ahead the clock stood.
        _ = try server.request("POST", "/_mock/clock", body: #"{"set":"9000-01-01T00:00:00Z"}"#)
        let before = Date()
        let running = try JSONParser.parse(try server.request("DELETE", "/_mock/clock").body)
        XCTAssertEqual(running.objectValue?["frozen"], .bool(false))
        let now = try XCTUnwrap(running.objectValue?["now"]?.stringValue.flatMap(ServerClock.instant))
        XCTAssertGreaterThanOrEqual(now.timeIntervalSince1970, (before.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        XCTAssertLessThan(now, ServerClock.instant("9000-01-01T00:00:00Z")!)

        // A reset of everything: as at the start.
        _ = try server.request("POST", "/_mock/reset")
        XCTAssertEqual(try clockText(server), #"{"now":"2024-09-01T10:00:00Z","frozen":true}"#)
        _ = try server.request("POST", "/_mock/clock", body: #"{"advance_seconds":60}"#)
        _ = try server.request("POST", "/_mock/reset/threads")
        XCTAssertEqual(try clockText(server), #"{"now":"2024-09-01T10:01:00Z","frozen":true}"#, "one API's reset leaves the clock")
    }

    func testWithoutAStartTheClockRunsUntilMoved() throws {
        let server = try TestServer(apis: ["threads"], clock: ServerClock())
        let before = Date().timeIntervalSince1970.rounded(.down)
        let running = try JSONParser.parse(try server.request("GET", "/_mock/clock").body).objectValue
        XCTAssertEqual(running?["frozen"], .bool(false))
        XCTAssertFalse(try server.request("GET", "/").text.contains("Clock:"), "a running clock is not news")
        let advanced = try JSONParser.parse(try server.request("POST", "/_mock/clock", body: #"{"advance_seconds":3600}"#).body).objectValue
        XCTAssertEqual(advanced?["frozen"], .bool(true))
        let now = try XCTUnwrap(advanced?["now"]?.stringValue.flatMap(ServerClock.instant))
        XCTAssertGreaterThanOrEqual(now.timeIntervalSince1970, before + 3600)
        _ = try server.request("POST", "/_mock/reset")
        XCTAssertEqual(try JSONParser.parse(try server.request("GET", "/_mock/clock").body).objectValue?["frozen"], .bool(false))
    }

    func testTheClockFollowsTheAdminRule() throws {
        let clock = ServerClock(standingAt: Self.start)
        var settings = AppSettings()
        settings.clock = clock
        let app = try MockApp(apis: [], settings: settings)
        XCTAssertEqual(app.respond("POST", "/_mock/clock", body: #"{"advance_seconds":60}"#, from: "10.0.0.7").status, 403)
        XCTAssertEqual(app.respond("DELETE", "/_mock/clock", from: "10.0.0.7").status, 403)
        XCTAssertEqual(app.respond("GET", "/_mock/clock", from: "10.0.0.7").status, 403)
        XCTAssertEqual(clock.now(), Self.start)
        settings.adminToken = "T"
        let guarded = try MockApp(apis: [], settings: settings)
        XCTAssertEqual(guarded.respond("GET", "/_mock/clock").status, 401)
        XCTAssertEqual(guarded.respond("GET", "/_mock/clock", headers: [("X-Mock-Admin-Token", "T")], from: "10.0.0.7").status, 200)
    }

    // MARK: Expiry without waiting

    func testAdvancingTheClockExpiresAnOTPCodeAndAThreadsToken() throws {
        let server = try TestServer(apis: ["threads", "otp"], clock: ServerClock(standingAt: Self.start))
        let login = try server.request("POST", "/api/login", body: "email=a@a.com&password=test123")
        let token = try XCTUnwrap(try JSONParser.parse(login.body).objectValue?["token"]?.stringValue)
        XCTAssertEqual(try server.request("POST", "/_mock/clock", body: #"{"advance_seconds":31535999}"#).status, 200)
        XCTAssertEqual(try server.request("GET", "/api/threads", headers: [("Authorization", "Bearer \(token)")]).status, 200)

        _ = try server.request("POST", "/api/send_verification_code", body: #"{"phone_number":"5305550100"}"#)
        let outbox = try JSONParser.parse(try server.request("GET", "/_mock/otp/outbox?phone=5305550100").body)
        let code = try XCTUnwrap(outbox.arrayValue?.first?.objectValue?["code"]?.stringValue)
        XCTAssertEqual(try server.request("POST", "/_mock/clock", body: #"{"advance_seconds":600}"#).status, 200)
        let verify = try server.request("POST", "/api/verify_code", body: #"{"e164_phone_number":"+15305550100","code":"\#(code)"}"#)
        XCTAssertEqual(verify.text, #"{"error_code":"code_expired","error_message":"Your code expired","status":"error"}"#)
        let expired = try server.request("GET", "/api/threads", headers: [("Authorization", "Bearer \(token)")])
        XCTAssertEqual(expired.status, 401)
        XCTAssertEqual(expired.text, #"{"status":"error","message":"Expired token."}"#)
    }

    // MARK: Seeded values

    /// A login's token, the id of a created workspace, an OTP code: the same again after a reset.
    func testASeedMintsTheSameValuesAfterEachReset() throws {
        let server = try TestServer(apis: ["threads", "cse118", "otp"], clock: ServerClock(standingAt: Self.start),
                                    randomness: Randomness(seed: 42))
        func threadsToken() throws -> String {
            let login = try server.request("POST", "/api/login", body: "email=a@a.com&password=test123")
            return try XCTUnwrap(try JSONParser.parse(login.body).objectValue?["token"]?.stringValue)
        }
        func workspaceID() throws -> String {
            let login = try server.request("POST", "/api/v2/login", body: #"{"email":"sslug@ucsc.edu","password":"1234567"}"#)
            let token = try XCTUnwrap(try JSONParser.parse(login.body).objectValue?["accessToken"]?.stringValue)
            let created = try server.request("POST", "/api/v2/workspace", headers: [("Authorization", "Bearer \(token)")],
                                             body: #"{"name":"Fixture"}"#)
            return try XCTUnwrap(try JSONParser.parse(created.body).objectValue?["id"]?.stringValue)
        }
        func otpCode() throws -> String {
            _ = try server.request("POST", "/api/send_verification_code", body: #"{"phone_number":"5305550100"}"#)
            let outbox = try JSONParser.parse(try server.request("GET", "/_mock/otp/outbox?phone=5305550100").body)
            return try XCTUnwrap(outbox.arrayValue?.first?.objectValue?["code"]?.stringValue)
        }
        let tokens = [try threadsToken(), try threadsToken()]
        let ids = [try workspaceID(), try workspaceID()]
        let codes = [try otpCode(), try otpCode()]
        XCTAssertNotEqual(tokens[0], tokens[1])
        XCTAssertNotEqual(ids[0], ids[1])
        for id in ids {
            XCTAssertNotNil(id.range(of: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
                                     options: .regularExpression), "\(id) is a version 4 UUID")
        }
        XCTAssertEqual(codes[0].count, 6)

        _ = try server.request("POST", "/_mock/reset")
        XCTAssertEqual([try threadsToken(), try threadsToken()], tokens)
        XCTAssertEqual([try workspaceID(), try workspaceID()], ids)
        XCTAssertEqual([try otpCode(), try otpCode()], codes)

        // One API's reset starts its own stream only.
        _ = try server.request("POST", "/_mock/reset/threads")
        XCTAssertEqual(try threadsToken(), tokens[0])
        XCTAssertNotEqual(try otpCode(), codes[0])
        _ = try server.request("POST", "/_mock/reset/otp")
        XCTAssertEqual(try otpCode(), codes[0])
    }
}
