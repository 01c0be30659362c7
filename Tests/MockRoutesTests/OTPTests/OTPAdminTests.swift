import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// The OTP API's side of the control surface: the outbox, the console, reset, state and faults.
final class OTPAdminTests: OTPTestCase {
    func testOutboxContentOrderAndFilter() throws {
        XCTAssertEqual(try outbox().text, "[]")
        let alex = try sendAndReadCode("5305550100")
        advanceClock(by: 1.5)
        let other = try sendAndReadCode("(530) 555-0123")
        advanceClock(by: 60)
        let alexAgain = try sendAndReadCode("+15305550100")

        let all = try outbox()
        XCTAssertEqual(all.status, 200)
        XCTAssertEqual(all.headers["Content-Type"], "application/json; charset=utf-8")
        XCTAssertEqual(all.text, "["
            + #"{"phone":"+15305550100","code":"\#(alexAgain)","sent_at":"2024-05-01T17:06:10.625Z","expires_at":"2024-05-01T17:16:10.625Z"},"#
            + #"{"phone":"+15305550123","code":"\#(other)","sent_at":"2024-05-01T17:05:10.625Z","expires_at":"2024-05-01T17:15:10.625Z"},"#
            + #"{"phone":"+15305550100","code":"\#(alex)","sent_at":"2024-05-01T17:05:09.125Z","expires_at":"2024-05-01T17:15:09.125Z"}"#
            + "]")

        // `+` in a query is a space, so `?phone=+15305550100` works unencoded too.
        for filter in ["+15305550100", "%2B15305550100", "5305550100", "(530)%20555-0100", "1-530-555-0100"] {
            let filtered = try XCTUnwrap(try JSONParser.parse(try outbox("?phone=\(filter)").body).arrayValue, filter)
            XCTAssertEqual(filtered.compactMap { $0.objectValue?[string: "code"] }, [alexAgain, alex], filter)
        }
        XCTAssertEqual(try outbox("?phone=5305550199").text, "[]")
        let invalid = try outbox("?phone=12345")
        XCTAssertEqual(invalid.status, 400)
        XCTAssertEqual(invalid.text,
                       #"{"error":"invalid_phone_number","detail":"phone must be a US number such as +15305550100"}"#)
        XCTAssertEqual(try server.request("POST", "/_mock/otp/outbox").status, 405)
    }

    func testOutboxIsBehindTheAdminAccessRule() throws {
        try startServer(settings: AppSettings(adminToken: "secret"))
        _ = try send("5305550100")
        let refused = try outbox()
        XCTAssertEqual(refused.status, 401)
        XCTAssertTrue(refused.text.hasPrefix(#"{"error":"unauthorized""#), refused.text)
        let allowed = try server.request("GET", "/_mock/otp/outbox", headers: [("Authorization", "Bearer secret")])
        XCTAssertEqual(allowed.status, 200)
        XCTAssertTrue(allowed.text.hasPrefix(#"[{"phone":"+15305550100","code":""#), allowed.text)
    }

    func testConsoleLinePerCode() throws {
        let code = try sendAndReadCode("530.555.0101")
        XCTAssertEqual(console.withLock { $0 }, ["otp: code \(code) for +15305550101"])
        XCTAssertEqual(code.count, 6)
        XCTAssertTrue(code.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }, code)
        // Nothing else is printed for verify and user requests.
        _ = try verify("5305550101", code)
        _ = try readUser(Self.priyaToken)
        XCTAssertEqual(console.withLock { $0.count }, 1)
    }

    func testResetRestoresTheSeedAndClearsCodesAndOutbox() throws {
        let token = try XCTUnwrap(try logIn("5305550123")[string: "auth_token"])
        _ = try post("/api/user", #"{"name":"Changed","accounts":[]}"#, token: Self.alexToken)
        let pending = try sendAndReadCode("5305550124")

        let reset = try server.request("POST", "/_mock/reset/otp")
        XCTAssertEqual(reset.text, #"{"reset":["otp"]}"#)
        assertError(try readUser(token), "invalid_auth_token", "Your auth token is invalid")
        assertError(try verify("5305550124", pending), "incorrect_code", "Incorrect verification code")
        XCTAssertEqual(try outbox().text, "[]")
        let alex = try XCTUnwrap(try object(try readUser(Self.alexToken)).user)
        XCTAssertEqual(alex[string: "name"], "Alex Rivera")
        XCTAssertEqual(alex["accounts"]?.arrayValue?.count, 3)
        // The number is new again after the reset.
        XCTAssertEqual(try logIn("5305550123")["is_new_user"], .number("1"))
    }

    func testStateExportLoadRoundTrip() throws {
        let login = try logIn("5305550123")
        let token = try XCTUnwrap(login[string: "auth_token"])
        let saved = try post("/api/user", #"{"name":"Saved","accounts":[{"ID":"x","amount":"1e-05","name":"Dust"}]}"#,
                             token: token).text
        let exported = api.exportState()
        XCTAssertTrue(String(decoding: exported, as: UTF8.self).hasPrefix(#"{"users":[{"user_id":"MkMAKgY3WXmrUcV2_2ekhQHJ","#
            + #""e164_phone_number":"+15305550100","name":"Alex Rivera","keyfile_password":"FXA4X9ScKCNJNR7fj4RBNkeTHPwtJyH5","#
            + #""auth_tokens":["seed_token_alex_rivera_000000001"],"accounts":[{"ID":"4AA5C028-615E-46F2-898E-7B539F5FC2D2","#))

        let pending = try sendAndReadCode("5305550199")
        try api.loadState(SeedJSON(exported))
        // The same answers as before the load; pending codes and the outbox are untouched.
        XCTAssertEqual(try readUser(token).text, saved)
        XCTAssertEqual(api.exportState(), exported)
        XCTAssertEqual(try JSONParser.parse(try outbox().body).arrayValue?.count, 2)
        XCTAssertEqual(try object(try verify("5305550199", pending))["is_new_user"], .number("1"))

        // Reset still goes to the seed, not to the loaded document.
        _ = try server.request("POST", "/_mock/reset/otp")
        XCTAssertEqual(try readUser(token).text,
                       #"{"error_code":"invalid_auth_token","error_message":"Your auth token is invalid","status":"error"}"#)
    }

    func testLoadStateRejectsBadDocumentsAndChangesNothing() throws {
        let before = api.exportState()
        let user = #""user_id":"MkMAKgY3WXmrUcV2_2ekhQHJ","name":"A","keyfile_password":"FXA4X9ScKCNJNR7fj4RBNkeTHPwtJyH5""#
        let cases: [(String, String)] = [
            (#"{"users":{}}"#, "$.users"),
            (#"{"users":[{"e164_phone_number":"5305550100",\#(user)}]}"#, "$.users[0].e164_phone_number"),
            (#"{"users":[{"e164_phone_number":"+10305550100",\#(user)}]}"#, "$.users[0].e164_phone_number"),
            (#"{"users":[{"e164_phone_number":"+15305550100",\#(user)},{"e164_phone_number":"+15305550100",\#(user)}]}"#,
             "$.users[1].e164_phone_number"),
            (#"{"users":[{"e164_phone_number":"+15305550100",\#(user)},{"e164_phone_number":"+15305550101",\#(user)}]}"#,
             "$.users[1].user_id"),
            (#"{"users":[{"e164_phone_number":"+15305550100","user_id":"","name":"A","keyfile_password":"FXA4X9ScKCNJNR7fj4RBNkeTHPwtJyH5"}]}"#,
             "$.users[0].user_id"),
            (#"{"users":[{"e164_phone_number":"+15305550100",\#(user),"auth_tokens":["seed_token_alex_rivera_000000001","seed_token_alex_rivera_000000001"]}]}"#,
             "$.users[0].auth_tokens[1]"),
            (#"{"users":[{"e164_phone_number":"+15305550100",\#(user),"auth_tokens":[" a space first is trimmed off a header"]}]}"#,
             "$.users[0].auth_tokens[0]"),
            (#"{"users":[{"e164_phone_number":"+15305550100",\#(user),"accounts":[{"ID":"a","amount":"1,5","name":"n"}]}]}"#,
             "$.users[0].accounts[0].amount"),
            (#"{"users":[{"e164_phone_number":"+15305550100","user_id":"MkMAKgY3WXmrUcV2_2ekhQHJ","name":5,"keyfile_password":"FXA4X9ScKCNJNR7fj4RBNkeTHPwtJyH5"}]}"#,
             "$.users[0].name"),
        ]
        for (document, path) in cases {
            XCTAssertThrowsError(try api.loadState(SeedJSON(Array(document.utf8))), document) { error in
                XCTAssertEqual((error as? SeedError)?.path, path, document)
            }
        }
        XCTAssertEqual(api.exportState(), before)
        XCTAssertEqual(try object(try readUser(Self.alexToken)).user?[string: "name"], "Alex Rivera")
    }

    func testInjectedFaultIsTheFlatErrorWithStatus200() throws {
        for status in [503, 500] {
            let fault = api.injectedFault(status: status)
            XCTAssertEqual(fault.status, 200)
            XCTAssertEqual(fault.headers["Content-Type"], "application/json; charset=utf-8")
            XCTAssertEqual(String(decoding: fault.body, as: UTF8.self),
                           #"{"error_code":"server_error","error_message":"Server error","status":"error"}"#)
        }
    }

}
