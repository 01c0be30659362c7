import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// Hostile bodies against every API of the whole app: wrong JSON types in every field, deep
/// nesting, huge numbers, bytes that are not UTF-8. Each API must answer in its own format,
/// never with a 5xx, and keep serving.
final class HostileAPITests: XCTestCase {
    private var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer()
    }

    override func tearDown() {
        server = nil
    }

    /// JSON that is the wrong type (or an absurd value) for any field of any API.
    private static let wrongLiterals = [
        "[]", "[\"b@b.com\"]", "{}", "{\"a\":\"b\"}", "null", "true", "false", "1e999999", "-1e999999",
        "123456789012345678901234567890", "-0", "0.1", "\"\"", "\"\\u0000\"", "\"\\ud800\"",
        "\"" + String(repeating: "x", count: 20_000) + "\"",
    ]

    private static let nonScalarLiterals: Set = ["[]", "[\"b@b.com\"]", "{}", "{\"a\":\"b\"}", "null", "true", "false"]

    /// The string literals among `wrongLiterals` (other than the unpaired surrogate, which is not
    /// valid JSON), with their length in code points.
    private static let stringLiteralLengths = ["\"\"": 0, "\"\\u0000\"": 1, "\"" + String(repeating: "x", count: 20_000) + "\"": 20_000]
    private static let unpairedSurrogate = "\"\\ud800\""
    private static let cse118NotJSON = #"{"message":"Request body is not valid JSON","status":400}"#

    private static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    private func json(_ response: ClientResponse) -> JSONObject? {
        (try? JSONParser.parse(response.body))?.objectValue
    }

    // MARK: The formats each API answers in

    /// threads: `{"status":"error","message":…}` with a 4xx, or its success shapes.
    private func assertThreadsAnswer(_ response: ClientResponse, mustFail: Bool, _ context: String,
                                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThan(response.status, 500, context, file: file, line: line)
        let body = json(response)
        XCTAssertNotNil(body, "JSON body: \(context)", file: file, line: line)
        if response.status >= 400 || mustFail {
            XCTAssertTrue((400..<500).contains(response.status), context, file: file, line: line)
            XCTAssertEqual(body?["status"]?.stringValue, "error", context, file: file, line: line)
            XCTAssertNotNil(body?["message"]?.stringValue, context, file: file, line: line)
        }
    }

    /// otp: always 200 (405 aside); errors are `{"error_code":…,"error_message":…,"status":"error"}`.
    private func assertOTPAnswer(_ response: ClientResponse, mustFail: Bool, _ context: String,
                                 file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, 200, context, file: file, line: line)
        let body = json(response)
        XCTAssertNotNil(body, "JSON body: \(context)", file: file, line: line)
        if mustFail || body?["status"]?.stringValue == "error" {
            XCTAssertEqual(body?["status"]?.stringValue, "error", context, file: file, line: line)
            XCTAssertNotNil(body?["error_code"]?.stringValue, context, file: file, line: line)
        }
    }

    private func threadsToken() throws -> String {
        let response = try server.request("POST", "/api/login", body: "email=b@b.com&password=test123")
        return try XCTUnwrap(json(response)?["token"]?.stringValue)
    }

    private static let otpToken = "seed_token_alex_rivera_000000001"

    // MARK: Wrong types in every field

    func testThreadsWrongTypesInEveryField() throws {
        let token = try threadsToken()
        let auth = [("Authorization", "BEARER \(token)"), ("Content-Type", "application/json")]
        let endpoints: [(path: String, headers: [(String, String)], fields: [(String, String)])] = [
            ("/api/login", [("Content-Type", "application/json")], [("email", "\"b@b.com\""), ("password", "\"test123\"")]),
            ("/api/signup", [], [("email", "\"hostile@example.com\""), ("password", "\"pw\""), ("fname", "\"F\""), ("lname", "\"L\"")]),
            ("/api/thread/add", auth, [("title", "\"A title\"")]),
            ("/api/message/add", auth, [("thread_id", "1"), ("message", "\"hello\"")]),
        ]
        for endpoint in endpoints {
            for index in endpoint.fields.indices {
                for literal in Self.wrongLiterals {
                    var fields = endpoint.fields
                    fields[index].1 = literal
                    let body = Self.object(fields)
                    let response = try server.request("POST", endpoint.path, headers: endpoint.headers, body: body)
                    assertThreadsAnswer(response, mustFail: Self.nonScalarLiterals.contains(literal),
                                        "\(endpoint.path) \(fields[index].0)=\(literal.prefix(40))")
                }
            }
        }
        let login = try server.request("POST", "/api/login", body: "email=b@b.com&password=test123")
        XCTAssertEqual(login.status, 200)
    }

    func testOTPWrongTypesInEveryField() throws {
        let endpoints: [(path: String, headers: [(String, String)], fields: [(String, String)])] = [
            ("/api/send_verification_code", [], [("phone_number", "\"+15305550100\"")]),
            ("/api/verify_code", [], [("e164_phone_number", "\"+15305550100\""), ("code", "\"123456\"")]),
            ("/api/user", [("x-authtoken", Self.otpToken)], [("name", "\"Alex Rivera\""), ("accounts", "[]")]),
        ]
        // `null` stands for an absent optional field in this API, so only other types must fail.
        let mustFail = Self.nonScalarLiterals.subtracting(["null"])
        for endpoint in endpoints {
            for index in endpoint.fields.indices {
                for literal in Self.wrongLiterals + ["[{\"name\":1,\"ID\":[],\"amount\":{}}]", "[null]", "[[]]"] {
                    var fields = endpoint.fields
                    fields[index].1 = literal
                    let response = try server.request("POST", endpoint.path, headers: endpoint.headers, body: Self.object(fields))
                    let isAccountList = fields[index].0 == "accounts" && literal == "[]"
                    assertOTPAnswer(response, mustFail: mustFail.contains(literal) && !isAccountList,
                                    "\(endpoint.path) \(fields[index].0)=\(literal.prefix(40))")
                }
            }
        }
        // The seeded user survived every attempt with a usable token.
        let user = try server.request("POST", "/api/user", headers: [("x-authtoken", Self.otpToken)], body: "{}")
        XCTAssertEqual(json(user)?["user"]?.objectValue?["e164_phone_number"]?.stringValue, "+15305550100")
    }

    /// cse118 validates like express-openapi-validator: every field that is not a string is a
    /// `type` problem, strings outside their code-point limits are `minLength`/`maxLength`, an
    /// unknown property is `additionalProperties`, bytes that are not JSON get the plain 400.
    /// Whatever is accepted must show up in the lists afterwards, and nothing else.
    func testCSE118WrongTypesInEveryField() throws {
        let client = CSE118Client(server: server)
        let seed = try CSE118Seed()
        let sammy = CSE118Account.sammy.0
        let token = try client.login(CSE118Account.sammy)
        let workspace = seed.workspace("Student Workspace", of: sammy)
        let channel = seed.channel("Student Channel", in: "Student Workspace", of: sammy)
        let endpoints: [(path: String, token: String?, fields: [(name: String, valid: String, length: ClosedRange<Int>?)])] = [
            ("/login", nil, [("email", "\"\(sammy)\"", nil), ("password", "\"1234567\"", nil)]),
            ("/workspace", token, [("name", "\"Hostile\"", 1...32)]),
            ("/workspace/\(workspace)/channel", token, [("name", "\"Hostile\"", 1...32)]),
            ("/channel/\(channel)/message", token, [("content", "\"Hostile\"", 1...1000)]),
        ]
        var created: [String: Int] = [:]
        for endpoint in endpoints {
            for index in endpoint.fields.indices {
                let field = endpoint.fields[index]
                // Astral code points at and just past the limit: lengths count code points, not UTF-16.
                let edges = field.length.map { length in
                    [length.upperBound, length.upperBound + 1].map { ("\"" + String(repeating: "🐌", count: $0) + "\"", $0) }
                } ?? []
                let strings = Self.stringLiteralLengths.map { ($0.key, $0.value) } + edges
                let values: [(literal: String, codePoints: Int?)] =
                    Self.wrongLiterals.filter { Self.stringLiteralLengths[$0] == nil }.map { ($0, nil) } + strings
                for (literal, codePoints) in values {
                    var fields = endpoint.fields.map { ($0.name, $0.valid) }
                    fields[index].1 = literal
                    let response = try client.call("POST", endpoint.path, token: endpoint.token, body: Self.object(fields))
                    let context = "\(endpoint.path) \(field.name)=\(literal.prefix(40))"
                    let path = "/body/\(field.name)"
                    if literal == Self.unpairedSurrogate {
                        assertCSE118(response, 400, Self.cse118NotJSON)
                    } else if let codePoints, let length = field.length, codePoints < length.lowerBound {
                        assertCSE118(response, 400, cse118Validation(path, "must NOT have fewer than \(length.lowerBound) characters", "minLength"))
                    } else if let codePoints, let length = field.length, codePoints > length.upperBound {
                        assertCSE118(response, 400, cse118Validation(path, "must NOT have more than \(length.upperBound) characters", "maxLength"))
                    } else if codePoints == nil {
                        assertCSE118(response, 400, cse118Validation(path, "must be string", "type"))
                    } else if endpoint.path == "/login" {
                        assertCSE118(response, 401, #"{"message":"Invalid credentials","status":401}"#)
                    } else {
                        XCTAssertEqual(response.status, 201, context)
                        created[endpoint.path, default: 0] += 1
                    }
                    XCTAssertLessThan(response.status, 500, context)

                    // The same value in a property the schema does not have.
                    let extra = try client.call("POST", endpoint.path, token: endpoint.token,
                                                body: Self.object(endpoint.fields.map { ($0.name, $0.valid) } + [("extra", literal)]))
                    if literal == Self.unpairedSurrogate {
                        assertCSE118(extra, 400, Self.cse118NotJSON)
                    } else {
                        assertCSE118(extra, 400, cse118Validation("/body/extra", "must NOT have additional properties", "additionalProperties"))
                    }
                }
            }
            // Each wrong value as the whole body.
            for literal in Self.wrongLiterals {
                let response = try client.call("POST", endpoint.path, token: endpoint.token, body: literal)
                let required = endpoint.fields.map { "/body/\($0.name) required.openapi.validation" }
                switch literal {
                case Self.unpairedSurrogate: assertCSE118(response, 400, Self.cse118NotJSON)
                case "{}": XCTAssertEqual(cse118ErrorCodes(response), required, endpoint.path)
                case "{\"a\":\"b\"}":
                    XCTAssertEqual(cse118ErrorCodes(response), required + ["/body/a additionalProperties.openapi.validation"])
                default: assertCSE118(response, 400, cse118Validation("/body", "must be object", "type"))
                }
            }
        }
        // Accepted: the one-code-point NUL string and the string at the limit, once per create endpoint.
        XCTAssertEqual(created, ["/workspace": 2, "/workspace/\(workspace)/channel": 2, "/channel/\(channel)/message": 2])
        // Exactly those writes landed: 3 fixture workspaces, 3 fixture channels, 1 fixture message.
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace", token: token)).count, 3 + 2)
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace/\(workspace)/channel", token: token)).count, 3 + 2)
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/channel/\(channel)/message", token: token)).count, 1 + 2)
    }

    /// Every `{id}` route and both `?mid=` routes of cse118 with ids that are not UUIDs, query
    /// strings that are not what the schema has, and UUIDs that name nobody.
    func testCSE118HostilePathIDsAndMid() throws {
        let client = CSE118Client(server: server)
        let seed = try CSE118Seed()
        let token = try client.login(CSE118Account.sammy)
        let workspace = seed.workspace("Student Workspace", of: CSE118Account.sammy.0)
        let molly = seed.id(CSE118Account.molly.0)
        let badID = cse118Validation("/params/id", #"must match format \"uuid\""#, "format")
        let idRoutes = [("DELETE", "/workspace/{}"), ("GET", "/workspace/{}/channel"), ("POST", "/workspace/{}/channel"),
                        ("DELETE", "/channel/{}"), ("GET", "/channel/{}/message"), ("POST", "/channel/{}/message"),
                        ("DELETE", "/message/{}"), ("GET", "/workspace/{}/member"), ("POST", "/workspace/{}/member"),
                        ("DELETE", "/workspace/{}/member")]
        let notUUIDs = ["abc", "%00", "%FF%FE", "-0", "1e999999", "null", "[]", "{}", String(repeating: "f", count: 3000),
                        molly + "0", String(molly.dropLast()), String(molly.dropLast()) + "g", "{\(molly)}",
                        molly.replacingOccurrences(of: "-", with: ""), molly.replacingOccurrences(of: "-", with: "%2D")]
        for (method, route) in idRoutes {
            for id in notUUIDs {
                // The path is checked before the query and the body, whatever they hold.
                let response = try client.call(method, route.replacingOccurrences(of: "{}", with: id) + "?mid=[]&x=1",
                                                token: token, body: "[")
                assertCSE118(response, 400, badID)
            }
        }
        let badMid = cse118Validation("/query/mid", #"must match format \"uuid\""#, "format")
        let nobody = "0e4a6f2c-1d3b-4c5e-8f70-9a1b2c3d4e5f"
        let queries: [(query: String, status: Int, body: String)] = [
            ("", 400, cse118Validation("/query/mid", "must have required property 'mid'", "required")),
            ("?mid", 400, badMid), ("?mid=", 400, badMid), ("?mid=%FF%FE", 400, badMid), ("?mid=%00", 400, badMid),
            ("?mid=[]", 400, badMid), ("?mid=1e999999", 400, badMid), ("?mid=" + String(repeating: "9", count: 3000), 400, badMid),
            ("?mid=\(molly)%00", 400, badMid), ("?mid[]=\(molly)", 400, ""), ("?mid=\(molly)&mid=\(molly)", 400,
            cse118Validation("/query/mid", "must be string", "type")),
            ("?mid=\(nobody)", 404, #"{"message":"Member not found","status":404}"#),
            ("?mid=\(seed.id(CSE118Account.sammy.0))", 409, #"{"message":"Member owns this workspace","status":409}"#),
        ]
        for method in ["POST", "DELETE"] {
            for (query, status, body) in queries where !(method == "DELETE" && status == 409) {
                let response = try client.call(method, "/workspace/\(workspace)/member" + query, token: token, body: "{\"mid\":[]}")
                if body.isEmpty {
                    XCTAssertEqual(response.status, status, query)
                    XCTAssertEqual(cse118ErrorCodes(response), ["/query/mid required.openapi.validation",
                                                                "/query/mid[] additionalProperties.openapi.validation"])
                } else {
                    assertCSE118(response, status, body)
                }
            }
        }
        // Nothing was added by any of it; a proper add in upper case still works.
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace/\(workspace)/member", token: token)).count, 0)
        XCTAssertEqual(try client.call("POST", "/workspace/\(workspace)/member?mid=\(molly.uppercased())", token: token).status, 201)
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace/\(workspace)/member", token: token)).count, 1)
    }

    func testWSUVHostileParameters() throws {
        // Form parameters only: JSON bodies give none (400); odd values are just text.
        for script in ["register.cgi", "login.cgi", "add-tweet.cgi", "del-tweet.cgi", "get-tweets.cgi"] {
            for body in ["{\"username\":[],\"password\":{}}", "username=%FF%FE&password=%00", "username&password",
                         "username=" + String(repeating: "u", count: 50_000) + "&password=p",
                         "date=1e999999&tweet_id=-123456789012345678901234567890&session_token=[]",
                         "%%%=%%%&&&==="] {
                let type = body.hasPrefix("{") ? "application/json" : "application/x-www-form-urlencoded"
                let response = try server.request("POST", "/cgi-bin/\(script)", headers: [("Content-Type", type)], body: body)
                XCTAssertTrue((200..<500).contains(response.status), "\(script) \(body.prefix(40)): \(response.status)")
                XCTAssertEqual(response.headers["Content-Type"]?.hasPrefix("application/json"), true)
            }
        }
        XCTAssertEqual(try server.request("POST", "/cgi-bin/login.cgi", body: "username=alice&password=wonderland").status, 200)
    }

    func testInternProductsHostileQueries() throws {
        for value in ["%FF%FE", "%00", "%", "%%", "+", "[]", "{}", "1e999999", "-0", String(repeating: "v", count: 3000),
                      "a%26username%3Db", "%E2%80%AE"] {
            for target in ["/login?username=\(value)&password=\(value)", "/register?username=\(value)&password=\(value)",
                           "/products?loginToken=\(value)", "/products?loginToken=\(value)&loginToken=\(value)"] {
                let response = try server.request("GET", target)
                XCTAssertEqual(response.status, 200, String(target.prefix(80)))
                XCTAssertNotNil(try? JSONParser.parse(response.body), String(target.prefix(80)))
            }
        }
        XCTAssertEqual(try server.request("GET", "/login?username=admin&password=1234").status, 200)
    }

    /// Every node of every API's state document, replaced by each wrong type: the admin surface
    /// answers 400 with the path (or 200 where the value happens to be valid) and a refused
    /// document changes nothing.
    func testStateDocumentsWithWrongTypesAnywhere() throws {
        let replacements: [JSONValue] = [.object(JSONObject()), .null, .bool(true), .number("1e999999"), .string("")]
        for api in ["threads", "otp", "wsuv", "internproducts", "cse118"] {
            let original = try server.request("GET", "/_mock/state/\(api)").body
            let document = try JSONParser.parse(original)
            var tried = 0
            for replacement in replacements {
                for mutated in Self.documents(replacingEachNodeOf: document, with: replacement) {
                    tried += 1
                    let response = try server.request("PUT", "/_mock/state/\(api)", body: mutated.encoded(escapeSlash: false))
                    XCTAssertTrue([200, 400].contains(response.status), "\(api): \(response.status) \(response.text)")
                    if response.status == 400 {
                        XCTAssertEqual(json(response)?["error"]?.stringValue, "invalid_state")
                        XCTAssertEqual(json(response)?["path"]?.stringValue?.hasPrefix("$"), true)
                    } else {
                        XCTAssertEqual(try server.request("PUT", "/_mock/state/\(api)", body: original).status, 200)
                    }
                }
            }
            XCTAssertGreaterThan(tried, 20, api)
            XCTAssertEqual(try server.request("GET", "/_mock/state/\(api)").text, String(decoding: original, as: UTF8.self),
                           "\(api): refused documents changed nothing")
        }
    }

    func testFaultDocumentsWithWrongTypes() throws {
        let fields = [("latency_ms", "[0,0]"), ("error_rate", "0"), ("error_status", "503"), ("apis", "[\"threads\"]")]
        for index in fields.indices {
            for literal in Self.wrongLiterals + ["[1]", "[5,1]", "[-1,2]", "[1e999999,1e999999]", "2", "-1", "99", "[\"nope\"]"] {
                var document = fields
                document[index].1 = literal
                let response = try server.request("PUT", "/_mock/faults", body: Self.object(document))
                XCTAssertTrue([200, 400].contains(response.status), "\(document[index].0)=\(literal.prefix(30)): \(response.status)")
                if response.status == 400 {
                    XCTAssertEqual(json(response)?["error"]?.stringValue, "invalid_faults")
                }
                XCTAssertEqual(try server.request("DELETE", "/_mock/faults").status, 204)
            }
        }
        XCTAssertEqual(try server.request("POST", "/api/login", body: "email=b@b.com&password=test123").status, 200)
    }

    /// Copies of `value`, each with one node (the root included) replaced; arrays contribute
    /// their first element only, which has the same shape as the rest.
    private static func documents(replacingEachNodeOf value: JSONValue, with replacement: JSONValue) -> [JSONValue] {
        var results = [replacement]
        switch value {
        case var .array(elements):
            for index in elements.indices.prefix(1) {
                let element = elements[index]
                for mutated in documents(replacingEachNodeOf: element, with: replacement) {
                    elements[index] = mutated
                    results.append(.array(elements))
                }
                elements[index] = element
            }
        case var .object(object):
            for index in object.members.indices {
                let member = object.members[index].value
                for mutated in documents(replacingEachNodeOf: member, with: replacement) {
                    object.members[index].value = mutated
                    results.append(.object(object))
                }
                object.members[index].value = member
            }
        default:
            break
        }
        return results
    }

    // MARK: Nesting, sizes and bytes

    func testDeepNestingAndHugeDocuments() throws {
        let deepArrays = String(repeating: "[", count: 100_000)
        let deepObjects = String(repeating: "{\"a\":", count: 50_000)
        let longNumber = "{\"email\":" + String(repeating: "9", count: 1_000_000) + "}"
        for body in [deepArrays, deepObjects, deepArrays + String(repeating: "]", count: 100_000), longNumber] {
            let threads = try server.request("POST", "/api/login", headers: [("Content-Type", "application/json")], body: body)
            assertThreadsAnswer(threads, mustFail: true, "threads \(body.prefix(10))")
            let otp = try server.request("POST", "/api/verify_code", body: body)
            assertOTPAnswer(otp, mustFail: true, "otp \(body.prefix(10))")
            let state = try server.request("PUT", "/_mock/state/threads", body: body)
            XCTAssertEqual(state.status, 400)
            XCTAssertEqual(json(state)?["error"]?.stringValue, "invalid_state")
        }
        XCTAssertEqual(try server.request("POST", "/api/login", body: "email=b@b.com&password=test123").status, 200)
    }

    func testBodiesThatAreNotUTF8() throws {
        let bad: [UInt8] = [0xFF, 0xFE, 0xC0, 0xAF, 0xED, 0xA0, 0x80]
        let jsonWithBadString = Array("{\"email\":\"".utf8) + bad + Array("\",\"password\":\"x\"}".utf8)
        let threads = try server.request("POST", "/api/login", headers: [("Content-Type", "application/json")], body: jsonWithBadString)
        assertThreadsAnswer(threads, mustFail: true, "threads invalid UTF-8")
        let form = try server.request("POST", "/api/login", body: Array("email=".utf8) + bad + Array("&password=x".utf8))
        assertThreadsAnswer(form, mustFail: true, "threads form invalid UTF-8")
        let otp = try server.request("POST", "/api/send_verification_code", body: jsonWithBadString)
        assertOTPAnswer(otp, mustFail: true, "otp invalid UTF-8")
        let wsuv = try server.request("POST", "/cgi-bin/login.cgi", body: Array("username=".utf8) + bad + Array("&password=x".utf8))
        XCTAssertTrue((400..<500).contains(wsuv.status))
    }

    /// Regression: a multipart body whose first delimiter line was followed directly by another
    /// delimiter crashed the process (a range with its bounds reversed in Multipart.parse).
    func testMultipartDelimiterRightAfterTheFirstDoesNotCrash() throws {
        let headers = [("Content-Type", "multipart/form-data; boundary=XyZ")]
        for body in ["--XyZ\n--XyZ\r\nCon", "--XyZ\r\n--XyZ--", "--XyZ\n--XyZ\n--XyZ--"] {
            let threads = try server.request("POST", "/api/login", headers: headers, body: body)
            assertThreadsAnswer(threads, mustFail: true, "threads multipart \(body)")
            let wsuv = try server.request("POST", "/cgi-bin/login.cgi", headers: headers, body: body)
            XCTAssertEqual(wsuv.status, 400)
        }
        XCTAssertNil(Multipart.parse(Array("--XyZ\n--XyZ\r\nCon".utf8), boundary: "XyZ"))
        XCTAssertEqual(try server.request("POST", "/api/login", body: "email=b@b.com&password=test123").status, 200)
    }
}
