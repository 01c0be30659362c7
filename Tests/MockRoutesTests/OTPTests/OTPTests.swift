import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// The three endpoints of otp.md over real sockets.
final class OTPTests: OTPTestCase {
    // MARK: Send and verify

    func testBareTenDigitSendThenPlusOneVerifyCreatesUser() throws {
        let sent = try post("/api/send_verification_code", #"{"phone_number":"5305550123"}"#, contentType: nil)
        XCTAssertEqual(sent.status, 200)
        XCTAssertEqual(sent.text, #"{"status":"ok"}"#)
        XCTAssertEqual(sent.headers["Content-Type"], "application/json; charset=utf-8")
        XCTAssertEqual(sent.headers["Access-Control-Allow-Origin"], "*")
        let line = try XCTUnwrap(console.withLock { $0.last })
        XCTAssertTrue(line.hasPrefix("otp: code ") && line.hasSuffix(" for +15305550123"), line)
        let code = String(line.dropFirst("otp: code ".count).prefix(6))
        XCTAssertTrue(code.allSatisfy(\.isASCII) && code.allSatisfy(\.isNumber), code)

        let verified = try verify("+15305550123", code)
        let answer = try object(verified)
        let token = try XCTUnwrap(answer[string: "auth_token"])
        let user = try XCTUnwrap(answer.user)
        let password = try XCTUnwrap(user[string: "keyfile_password"])
        let userID = try XCTUnwrap(user[string: "user_id"])
        assertWellFormed(token, length: 32)
        assertWellFormed(password, length: 32)
        assertWellFormed(userID, length: 24)
        XCTAssertEqual(verified.text, #"{"auth_token":"\#(token)","is_new_user":1,"status":"ok","user":{"#
            + #""drivers_license":null,"e164_phone_number":"+15305550123","email":null,"#
            + #""keyfile_password":"\#(password)","name":"","payment_methods":[],"tos_accpted":0,"#
            + #""user_id":"\#(userID)"}}"#)
        XCTAssertEqual(try readUser(token).text, #"{"status":"ok","user":{"drivers_license":null,"#
            + #""e164_phone_number":"+15305550123","email":null,"keyfile_password":"\#(password)","name":"","#
            + #""payment_methods":[],"tos_accpted":0,"user_id":"\#(userID)"}}"#)
    }

    func testEveryAcceptedPhoneFormReachesTheSameNumber() throws {
        let forms = ["+15305550123", "5305550123", "15305550123", "(530) 555-0123", "530.555.0123",
                     "+1 (530) 555-0123", "1-530-555-0123"]
        for form in forms {
            XCTAssertEqual(try send(form).text, #"{"status":"ok"}"#, form)
        }
        let entries = try XCTUnwrap(try JSONParser.parse(try outbox().body).arrayValue)
        XCTAssertEqual(entries.compactMap { $0.objectValue?[string: "phone"] },
                       Array(repeating: "+15305550123", count: forms.count))
        // The newest code is the one that works, whatever form verify uses.
        let newest = try XCTUnwrap(entries.first?.objectValue?[string: "code"])
        XCTAssertEqual(try object(try verify("(530) 555-0123", newest))[string: "status"], "ok")
    }

    func testInvalidPhoneNumbers() throws {
        let invalid = ["", "12345", "0305550123", "1305550123", "5300550123", "5301550123", "+5305550123",
                       "+25305550123", "25305550123", "+1530555012", "+153055501234", "530555012a",
                       "530/555/0123", #"530\t5550123"#, "\u{0665}\u{0663}\u{0660}5550123", "+115305550123"]
        for number in invalid {
            assertError(try send(number), "invalid_phone_number", "Your phone number is invalid")
            assertError(try verify(number, "123456"), "invalid_phone_number", "Your phone number is invalid")
        }
        for body in ["", "  \r\n\t", "{}", #"{"phone_number":null}"#, #"{"phone":"5305550123"}"#] {
            assertError(try post("/api/send_verification_code", body), "invalid_phone_number", "Your phone number is invalid")
        }
        assertError(try post("/api/verify_code", #"{"code":"123456"}"#), "invalid_phone_number", "Your phone number is invalid")
        XCTAssertTrue(console.withLock { $0.isEmpty }, "no code was issued")
    }

    func testBodiesThatAreNotJSONObjects() throws {
        let bodies: [[UInt8]] = ["{", "[]", #""5305550123""#, "5305550123", "null", "phone_number=5305550123",
                                 #"{"phone_number":"5305550123"} x"#].map { Array($0.utf8) }
            + [[0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]]
        for body in bodies {
            for path in ["/api/send_verification_code", "/api/verify_code"] {
                assertError(try post(path, body), "invalid_request", "The request body must be a JSON object")
            }
            assertError(try post("/api/user", body, token: Self.alexToken), "invalid_request",
                         "The request body must be a JSON object")
        }
    }

    func testFieldsOfTheWrongType() throws {
        for value in ["5305550123", "true", "{}", #"["5305550123"]"#] {
            assertError(try post("/api/send_verification_code", #"{"phone_number":\#(value)}"#),
                        "invalid_request", "phone_number must be a string")
            assertError(try post("/api/verify_code", #"{"e164_phone_number":\#(value),"code":"123456"}"#),
                        "invalid_request", "e164_phone_number must be a string")
        }
        // The code's type is checked before the number is.
        assertError(try post("/api/verify_code", #"{"e164_phone_number":"bad","code":123456}"#),
                    "invalid_request", "code must be a string")
    }

    func testContentTypeIsIgnoredAndLastRepeatedKeyWins() throws {
        try startServer(code: "123456")
        for type in [nil, Self.formType, "text/plain", "application/json", "multipart/form-data; boundary=x"] {
            let body = #"{"phone_number":"not a number","phone_number":"5305550100","extra":[1]}"#
            XCTAssertEqual(try post("/api/send_verification_code", body, contentType: type).text, #"{"status":"ok"}"#)
        }
        XCTAssertEqual(console.withLock { $0.count }, 5)
    }

    func testResendReplacesTheCode() throws {
        let first = try sendAndReadCode("5305550123")
        var second = try sendAndReadCode("5305550123")
        while second == first { second = try sendAndReadCode("5305550123") }
        assertError(try verify("+15305550123", first), "incorrect_code", "Incorrect verification code")
        XCTAssertEqual(try object(try verify("+15305550123", second))[string: "status"], "ok")
    }

    func testCodeExpiresAtTheTTLOnTheInjectedClock() throws {
        var code = try sendAndReadCode("5305550123")
        advanceClock(by: 599.999)
        XCTAssertEqual(try object(try verify("+15305550123", code))[string: "status"], "ok")

        code = try sendAndReadCode("5305550123")
        advanceClock(by: 600)
        assertError(try verify("+15305550123", code), "code_expired", "Your code expired")
        advanceClock(by: 3600)
        assertError(try verify("+15305550123", code), "code_expired", "Your code expired")
        // A new send starts a new lifetime.
        code = try sendAndReadCode("5305550123")
        XCTAssertEqual(try object(try verify("+15305550123", code))[string: "status"], "ok")
    }

    func testOTPTTLOption() throws {
        try startServer(code: "123456", ttl: 30)
        _ = try send("5305550100")
        XCTAssertEqual(try outbox().text, #"[{"phone":"+15305550100","code":"123456","#
            + #""sent_at":"2024-05-01T17:05:09.125Z","expires_at":"2024-05-01T17:05:39.125Z"}]"#)
        advanceClock(by: 30)
        assertError(try verify("5305550100", "123456"), "code_expired", "Your code expired")
    }

    func testFiveWrongCodesLockTheCode() throws {
        let code = try sendAndReadCode("5305550123")
        let wrong = code == "000000" ? "000001" : "000000"
        for _ in 1...5 {
            assertError(try verify("5305550123", wrong), "incorrect_code", "Incorrect verification code")
        }
        assertError(try verify("5305550123", code), "code_expired", "Your code expired")
        assertError(try verify("5305550123", wrong), "code_expired", "Your code expired")
        // A new send resets the count.
        let fresh = try sendAndReadCode("5305550123")
        for _ in 1...4 {
            assertError(try verify("5305550123", fresh == "000000" ? "000001" : "000000"), "incorrect_code",
                        "Incorrect verification code")
        }
        XCTAssertEqual(try object(try verify("5305550123", fresh))[string: "status"], "ok")
    }

    /// Asking for new codes buys no more guesses: 10 wrong codes per number per hour, whichever code.
    func testWrongCodesAreCountedPerNumberAcrossResends() throws {
        var code = ""
        for round in 0..<3 {
            code = try sendAndReadCode("5305550123")
            let wrong = code == "000000" ? "000001" : "000000"
            for _ in 0..<(round < 2 ? 4 : 2) {
                assertError(try verify("5305550123", wrong), "incorrect_code", "Incorrect verification code")
            }
        }
        assertError(try verify("5305550123", code), "code_expired", "Your code expired")
        // Other numbers keep their own budget.
        let other = try sendAndReadCode("5305550124")
        XCTAssertEqual(try object(try verify("5305550124", other))[string: "status"], "ok")
        // An hour after the first of them, the number may try again.
        advanceClock(by: 3600)
        code = try sendAndReadCode("5305550123")
        XCTAssertEqual(try object(try verify("5305550123", code))[string: "status"], "ok")
    }

    func testTwentyCodesPerNumberPerHour() throws {
        for _ in 0..<20 { _ = try sendAndReadCode("5305550123") }
        assertError(try send("5305550123"), "too_many_requests", "Too many codes were sent to this number; try again later")
        advanceClock(by: 3600)
        let code = try sendAndReadCode("5305550123")
        XCTAssertEqual(try object(try verify("5305550123", code))[string: "status"], "ok")
    }

    func testCodeIsSingleUseAndNeedsASend() throws {
        assertError(try verify("5305550123", "123456"), "incorrect_code", "Incorrect verification code")
        let code = try sendAndReadCode("5305550123")
        // Absent, null and a padded code are all wrong, not malformed.
        assertError(try post("/api/verify_code", #"{"e164_phone_number":"5305550123"}"#), "incorrect_code",
                    "Incorrect verification code")
        assertError(try post("/api/verify_code", #"{"e164_phone_number":"5305550123","code":null}"#), "incorrect_code",
                    "Incorrect verification code")
        assertError(try verify("5305550123", " \(code)"), "incorrect_code", "Incorrect verification code")
        XCTAssertEqual(try object(try verify("5305550123", code))[string: "status"], "ok")
        assertError(try verify("5305550123", code), "incorrect_code", "Incorrect verification code")
    }

    func testFixedCodeOption() throws {
        try startServer(code: "123456")
        assertError(try verify("5305550100", "123456"), "incorrect_code", "Incorrect verification code")
        XCTAssertEqual(try send("5305550100").text, #"{"status":"ok"}"#)
        XCTAssertEqual(console.withLock { $0 }, ["otp: code 123456 for +15305550100"])
        XCTAssertEqual(try object(try verify("+15305550100", "123456"))[string: "status"], "ok")
    }

    func testConcurrentVerifiesWithTheRightCodeSucceedOnce() throws {
        let code = try sendAndReadCode("5305550123")
        let results = Locked<[String]>([])
        let port = server.port
        let body = #"{"e164_phone_number":"5305550123","code":"\#(code)"}"#
        let raw = "POST /api/verify_code HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let client = try? BlockingClient(port: port)
            client?.send(raw)
            let text = (try? client?.readResponse().text) ?? "failed"
            results.withLock { $0.append(text) }
        }
        let answers = results.withLock { $0 }
        XCTAssertEqual(answers.filter { $0.hasPrefix(#"{"auth_token":"#) }.count, 1, "\(answers)")
        XCTAssertEqual(answers.filter { $0.contains(#""error_code":"incorrect_code""#) }.count, 7, "\(answers)")
    }

    // MARK: Users

    func testNewUserThenExistingUser() throws {
        let first = try logIn("5305550123")
        XCTAssertEqual(first["is_new_user"], .number("1"))
        let second = try logIn("(530) 555-0123")
        XCTAssertEqual(second["is_new_user"], .number("0"))
        XCTAssertEqual(second.user?[string: "user_id"], first.user?[string: "user_id"])
        XCTAssertEqual(second.user?[string: "keyfile_password"], first.user?[string: "keyfile_password"])
        XCTAssertNotEqual(second[string: "auth_token"], first[string: "auth_token"])
        // Both sessions stay valid (a second device does not log the first out).
        for answer in [first, second] {
            XCTAssertEqual(try object(try readUser(try XCTUnwrap(answer[string: "auth_token"]))).user?[string: "e164_phone_number"],
                           "+15305550123")
        }
        let seeded = try logIn("530-555-0100")
        XCTAssertEqual(seeded["is_new_user"], .number("0"))
        XCTAssertEqual(seeded.user?[string: "user_id"], "MkMAKgY3WXmrUcV2_2ekhQHJ")
        XCTAssertEqual(seeded.user?[string: "name"], "Alex Rivera")
        XCTAssertEqual(seeded.user?["accounts"]?.arrayValue?.count, 3)
    }

    func testSeedUsers() throws {
        XCTAssertEqual(try readUser(Self.alexToken).text, #"{"status":"ok","user":{"accounts":["#
            + #"{"ID":"4AA5C028-615E-46F2-898E-7B539F5FC2D2","amount":"1250.75","name":"Checking"},"#
            + #"{"ID":"03C2E384-B75A-4561-8C29-859668CCF081","amount":"8000.0","name":"Savings"},"#
            + #"{"ID":"178B40B7-966E-438A-A1DE-1E32EF94EBCF","amount":"0.0","name":"Travel Fund"}],"#
            + #""drivers_license":null,"e164_phone_number":"+15305550100","email":null,"#
            + #""keyfile_password":"FXA4X9ScKCNJNR7fj4RBNkeTHPwtJyH5","name":"Alex Rivera","payment_methods":[],"#
            + #""tos_accpted":0,"user_id":"MkMAKgY3WXmrUcV2_2ekhQHJ"}}"#)
        XCTAssertEqual(try readUser(Self.priyaToken).text, #"{"status":"ok","user":{"accounts":["#
            + #"{"ID":"21D56FDE-24B6-47FF-A83B-25AD13D7568C","amount":"42.5","name":"Account 0"},"#
            + #"{"ID":"64A947E5-284F-4CB2-9A3F-9B9C9FCCE57E","amount":"310.0","name":"Account 1"}],"#
            + #""drivers_license":null,"e164_phone_number":"+15305550101","email":null,"#
            + #""keyfile_password":"wLKHDN6AJTciBpBmmJf6q-ziAzJN1Cj6","name":"Priya Natarajan","payment_methods":[],"#
            + #""tos_accpted":0,"user_id":"556761qaCF1M2wUiTngH2NFO"}}"#)
        // Jordan never saved accounts: no `accounts` key at all.
        XCTAssertEqual(try readUser(Self.jordanToken).text, #"{"status":"ok","user":{"drivers_license":null,"#
            + #""e164_phone_number":"+15305550102","email":null,"keyfile_password":"ZbSTjmB3BTM7s4KVSC8M7sWWCt2wI4m4","#
            + #""name":"Jordan Lee","payment_methods":[],"tos_accpted":0,"user_id":"KkuP4pfq3MwHmSFN87JsQG3t"}}"#)
    }

    func testNameAndAccountsAreSavedAndEchoedExactly() throws {
        let token = Self.jordanToken
        let renamed = try object(try post("/api/user", #"{"name":"  Jordan \"J\" Lee 🚀 "}"#, token: token))
        XCTAssertEqual(renamed.user?[string: "name"], #"  Jordan "J" Lee 🚀 "#)
        XCTAssertNil(renamed.user?["accounts"])

        let accounts = #"{"accounts":[{"name":"Tiny","ID":"b","amount":"1e-05","color":"red"},"#
            + #"{"amount":"007.50","ID":"a","name":""},{"ID":"a","amount":"-.5","name":"Dup"},"#
            + #"{"ID":"","amount":"+5.","name":"x"}]}"#
        let expectedAccounts = #""accounts":[{"ID":"b","amount":"1e-05","name":"Tiny"},"#
            + #"{"ID":"a","amount":"007.50","name":""},{"ID":"a","amount":"-.5","name":"Dup"},"#
            + #"{"ID":"","amount":"+5.","name":"x"}],"#
        XCTAssertTrue(try post("/api/user", accounts, token: token).text.hasPrefix(#"{"status":"ok","user":{"# + expectedAccounts))
        // Read back with {}, an empty body, whitespace, and unknown keys only.
        for body in ["{}", "", " \n", #"{"foo":1}"#] {
            let text = try post("/api/user", body, token: token).text
            XCTAssertTrue(text.hasPrefix(#"{"status":"ok","user":{"# + expectedAccounts), text)
            XCTAssertTrue(text.contains(#""name":"  Jordan \"J\" Lee 🚀 ""#), text)
        }
        // Both keys at once; an empty list is kept as [].
        let both = try object(try post("/api/user", #"{"name":"","accounts":[]}"#, token: token))
        XCTAssertEqual(both.user?[string: "name"], "")
        XCTAssertEqual(both.user?["accounts"], .array([]))
        let longest = String(repeating: "é", count: 64)
        XCTAssertEqual(try object(try post("/api/user", #"{"name":"\#(longest)"}"#, token: token)).user?[string: "name"], longest)
    }

    func testInvalidNameOrAccountsChangeNothing() throws {
        let before = try readUser(Self.alexToken).text
        for value in ["null", "5", "[]", #""\#(String(repeating: "a", count: 65))""#,
                      #""\#(String(repeating: "e\u{301}", count: 33))""#] {
            assertError(try post("/api/user", #"{"name":\#(value),"accounts":[]}"#, token: Self.alexToken),
                        "invalid_name", "Your name must be a string of at most 64 characters")
        }
        let badAccounts = ["null", "{}", #""x""#, "[1]", "[[]]", #"[{"ID":"a","amount":"1"}]"#,
                           #"[{"ID":"a","name":"n"}]"#, #"[{"amount":"1","name":"n"}]"#,
                           #"[{"ID":5,"amount":"1","name":"n"}]"#, #"[{"ID":"a","amount":5.0,"name":"n"}]"#,
                           #"[{"ID":"a","amount":"1","name":null}]"#]
            + ["inf", "1,000", " 5", "", ".", "-", "1e", "1e+", "0x10", "5 ", "NaN", "١"].map {
                #"[{"ID":"a","amount":"\#($0)","name":"n"}]"#
            }
        for value in badAccounts {
            assertError(try post("/api/user", #"{"name":"Changed","accounts":\#(value)}"#, token: Self.alexToken),
                        "invalid_accounts", "Accounts must be a list of objects with string name, ID and amount")
        }
        XCTAssertEqual(try readUser(Self.alexToken).text, before)
    }

    func testElevenLoginsOfTheSeededNumberLeaveEveryTokenWorking() throws {
        // A classroom logs in as the banner's number and uses its seeded token (docs/apis/otp.md#tokens).
        let tokens = try (0...10).map { _ in try XCTUnwrap(logIn("5305550100")[string: "auth_token"]) }
        for token in [Self.alexToken] + tokens { XCTAssertEqual(try object(readUser(token))[string: "status"], "ok") }
    }

    func testPastTheLimitTheOldestIssuedTokenEndsButNoDocumentsToken() throws {
        try startServer(issuedTokenLimit: 2)
        let tokens = try (0...2).map { _ in try XCTUnwrap(logIn("5305550100")[string: "auth_token"]) }
        assertError(try readUser(tokens[0]), "invalid_auth_token", "Your auth token is invalid")
        for token in [Self.alexToken, tokens[1], tokens[2]] { XCTAssertEqual(try object(readUser(token))[string: "status"], "ok") }
        let exported = try server.request("GET", "/_mock/state/otp").text
        XCTAssertTrue(exported.contains(#""auth_tokens":["\#(Self.alexToken)","\#(tokens[1])","\#(tokens[2])"]"#), exported)
    }

    func testAuthTokensCompareByteForByte() throws {
        // The Kelvin sign (E2 84 AA) is canonically equivalent to K, but other bytes.
        let token = "KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK"
        let state = #"{"users":[{"user_id":"kkkkkkkkkkkkkkkkkkkkkkkk","e164_phone_number":"+15305550199","name":"K","#
            + #""keyfile_password":"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk","auth_tokens":["\#(token)"]}]}"#
        XCTAssertEqual(try server.request("PUT", "/_mock/state/otp", body: state).status, 200)
        XCTAssertEqual(try object(post("/api/user", "{}", token: token)).user?[string: "name"], "K")
        let kelvin = "\u{212A}" + token.dropFirst()
        assertError(try post("/api/user", "{}", token: kelvin), "invalid_auth_token", "Your auth token is invalid")
    }

    func testAuthToken() throws {
        let invalid = [nil, "", "   ", "seed_token_alex_rivera_00000000", "SEED_TOKEN_ALEX_RIVERA_000000001",
                       "seed_token_alex_rivera_000000001x"]
        for token in invalid {
            assertError(try post("/api/user", "{}", token: token), "invalid_auth_token", "Your auth token is invalid")
        }
        let bearer = try server.request("POST", "/api/user", headers: [("Authorization", "Bearer \(Self.alexToken)")], body: "{}")
        assertError(bearer, "invalid_auth_token", "Your auth token is invalid")
        // The token is checked before the body.
        assertError(try post("/api/user", "[", token: "nope"), "invalid_auth_token", "Your auth token is invalid")
        assertError(try post("/api/user", #"{"name":5}"#, token: nil), "invalid_auth_token", "Your auth token is invalid")
        // Header name in any case, value with surrounding spaces.
        let spaced = try server.request("POST", "/api/user", headers: [("X-AuthToken", "  \(Self.alexToken) ")], body: "{}")
        XCTAssertEqual(try object(spaced).user?[string: "name"], "Alex Rivera")
        // send and verify ignore a stale token.
        XCTAssertEqual(try post("/api/send_verification_code", #"{"phone_number":"5305550123"}"#, token: "stale").text,
                       #"{"status":"ok"}"#)
    }

    func testTokensAreIsolatedBetweenUsers() throws {
        let first = try XCTUnwrap(try logIn("5305550123")[string: "auth_token"])
        let second = try XCTUnwrap(try logIn("5305550124")[string: "auth_token"])
        _ = try post("/api/user", #"{"name":"First","accounts":[{"ID":"1","amount":"1","name":"Mine"}]}"#, token: first)
        let secondUser = try XCTUnwrap(try object(try post("/api/user", #"{"name":"Second"}"#, token: second)).user)
        XCTAssertEqual(secondUser[string: "e164_phone_number"], "+15305550124")
        XCTAssertNil(secondUser["accounts"])
        let firstUser = try XCTUnwrap(try object(try readUser(first)).user)
        XCTAssertEqual(firstUser[string: "name"], "First")
        XCTAssertEqual(firstUser[string: "e164_phone_number"], "+15305550123")
        XCTAssertEqual(firstUser["accounts"]?.arrayValue?.count, 1)
        XCTAssertEqual(try object(try readUser(Self.alexToken)).user?[string: "name"], "Alex Rivera")
    }

    // MARK: HTTP surface

    func testOtherMethodsAre405() throws {
        for path in ["/api/send_verification_code", "/api/verify_code", "/api/user"] {
            for method in ["GET", "PUT", "DELETE", "PATCH"] {
                let response = try server.request(method, path, headers: [("x-authtoken", Self.alexToken)])
                XCTAssertEqual(response.status, 405, "\(method) \(path)")
                XCTAssertEqual(response.headers["Allow"], "POST, OPTIONS")
                XCTAssertEqual(response.headers["Access-Control-Allow-Origin"], "*")
                XCTAssertEqual(response.text,
                               #"{"error_code":"method_not_allowed","error_message":"This endpoint only accepts POST","status":"error"}"#)
            }
            let head = try server.request("HEAD", path)
            XCTAssertEqual(head.status, 405)
            XCTAssertEqual(head.headers["Allow"], "POST, OPTIONS")
            let preflight = try server.request("OPTIONS", path)
            XCTAssertEqual(preflight.status, 204)
            XCTAssertEqual(preflight.headers["Access-Control-Allow-Methods"], "POST, OPTIONS")
        }
    }

    func testPathsAreExactAndTheQueryIsIgnored() throws {
        for (path, hint) in [("/api/user/", "/api/user"), ("/API/user", "/api/user"), ("/api/users", "/api/user"),
                             ("/api/send_verification_code/", "/api/send_verification_code")] {
            let response = try post(path, "{}", token: Self.alexToken)
            XCTAssertEqual(response.status, 404, path)
            XCTAssertEqual(response.text, #"{"error":"not_found","path":"\#(path)","hint":"POST \#(hint)"}"#)
        }
        XCTAssertEqual(try object(try post("/api/user?name=x", "{}", token: Self.alexToken)).user?[string: "name"], "Alex Rivera")
    }
}
