import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// The InternProducts API over real sockets, as the course's URLSession clients talk to it.
final class InternProductsTests: XCTestCase {
    /// 2025-11-17T12:08:33.204510Z: ends in 0, so the first token minted is bumped to …511.
    private static let now = Date(timeIntervalSinceReferenceDate: 785_246_913.204_510)
    private static let adminToken = "668961808.772846"
    private static let studentToken = "668943217.405113"

    private var api: (any MockAPI)!
    private var server: TestServer!

    override func setUpWithError() throws {
        api = try Self.makeAPI()
        server = try TestServer(responder: MockApp(apis: [api]))
    }

    override func tearDown() {
        server = nil
        api = nil
    }

    private static func makeAPI(_ configure: (inout APIOptions) -> Void = { _ in }) throws -> any MockAPI {
        var options = APIOptions()
        options.clock = { now }
        configure(&options)
        return try XCTUnwrap(APICatalog.load(["internproducts"], seed: TestServer.shippedSeed, options: options).first)
    }

    /// A new API and server whose options `configure` changed.
    private func restart(_ configure: (inout APIOptions) -> Void) throws {
        api = try Self.makeAPI(configure)
        server = try TestServer(responder: MockApp(apis: [api]))
    }

    // MARK: Helpers

    private func get(_ target: String, file: StaticString = #filePath, line: UInt = #line) throws -> ClientResponse {
        let response = try server.request("GET", target)
        assertAPIHeaders(response, file: file, line: line)
        return response
    }

    /// The raw body of a GET, checked for status 200 and the API's headers.
    private func body(_ target: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let response = try get(target, file: file, line: line)
        XCTAssertEqual(response.status, 200, target, file: file, line: line)
        return response.text
    }

    private func assertFailed(_ target: String, _ rawMessage: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try body(target, file: file, line: line), #"{"status":"FAILED","message":""# + rawMessage + #""}"#,
                       target, file: file, line: line)
    }

    private func assertToken(_ target: String, _ token: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try body(target, file: file, line: line), #"{"status":"SUCCESS","loginToken":""# + token + #""}"#,
                       target, file: file, line: line)
    }

    /// The token of a SUCCESS answer, or nil for a FAILED one.
    private func loginToken(from target: String) throws -> String? {
        let parsed = try JSONParser.parse(server.request("GET", target).body)
        return parsed.objectValue?["loginToken"]?.stringValue
    }

    private func assertAPIHeaders(_ response: ClientResponse, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.headers["Content-Type"], "application/json", file: file, line: line)
        XCTAssertEqual(response.headers["Cache-Control"], "no-cache", file: file, line: line)
        XCTAssertEqual(response.headers["Access-Control-Allow-Origin"], "*", file: file, line: line)
        XCTAssertNil(response.headers["Content-Encoding"], file: file, line: line)
        if !response.body.isEmpty {
            XCTAssertEqual(response.headers["Content-Length"], String(response.body.count), file: file, line: line)
        }
    }

    private func productsBody() throws -> [UInt8] {
        let response = try get("/products?loginToken=\(Self.adminToken)")
        XCTAssertEqual(response.status, 200)
        return response.body
    }

    private func exportedDocument() throws -> JSONValue {
        try JSONParser.parse(api.exportState())
    }

    /// The exported state, changed by `edit` as plain Foundation objects, parsed back.
    private func editedState(_ edit: (inout [String: Any]) -> Void) throws -> JSONValue {
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(api.exportState())) as? [String: Any])
        edit(&object)
        return try JSONParser.parse(Array(JSONSerialization.data(withJSONObject: object)))
    }

    // MARK: Login

    func testSeededAccountsLogInWithTheirFixtureTokens() throws {
        let response = try get("/login?username=admin&password=1234")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.reason, "OK")
        XCTAssertEqual(response.text, #"{"status":"SUCCESS","loginToken":"668961808.772846"}"#)
        try assertToken("/login?username=endavaStudent&password=schoolOfiOS", Self.studentToken)
        // Every login answers the same token; login never mints.
        try assertToken("/login?username=admin&password=1234", Self.adminToken)
    }

    func testLoginFailuresInTheDocumentedOrder() throws {
        try assertFailed("/login", "Missing parameter: username")
        try assertFailed("/login?password=1234", "Missing parameter: username")
        try assertFailed("/login?username=&password=1234", "Missing parameter: username")
        try assertFailed("/login?Username=admin&password=1234", "Missing parameter: username")
        try assertFailed("/login?username=admin", "Missing parameter: password")
        // Missing parameters come before the lookup.
        try assertFailed("/login?username=nobody&password=", "Missing parameter: password")
        try assertFailed("/login?username=nobody&password=x", "No such user with username: nobody")
        try assertFailed("/login?username=ADMIN&password=1234", "No such user with username: ADMIN")
        try assertFailed("/login?username=admin%20&password=1234", "No such user with username: admin ")
        try assertFailed("/login?username=admin&password=12345", "Wrong password for username: admin")
        try assertFailed("/login?username=endavaStudent&password=schoolofios", "Wrong password for username: endavaStudent")
    }

    // MARK: Register

    func testRegisterThenEveryLoginAnswersTheSameToken() throws {
        let registered = try get("/register?username=ana&password=pa55")
        XCTAssertEqual(registered.status, 200)
        XCTAssertEqual(registered.text, #"{"status":"SUCCESS","loginToken":"785246913.204511"}"#)
        XCTAssertEqual(registered.headers["Content-Length"], "52")
        for _ in 0..<3 {
            XCTAssertEqual(try body("/login?username=ana&password=pa55"), registered.text)
        }
        XCTAssertTrue(try body("/products?loginToken=785246913.204511").hasPrefix(#"{"status":"SUCCESS","products":[{"tags":"#))
        try assertFailed("/login?username=ana&password=PA55", "Wrong password for username: ana")
        try assertFailed("/register?username=ana&password=x", "Username already used: ana")
        // The failed register changed nothing.
        try assertToken("/login?username=ana&password=pa55", "785246913.204511")
        try assertFailed("/login?username=ana&password=x", "Wrong password for username: ana")
    }

    func testRegisterFailures() throws {
        try assertFailed("/register", "Missing parameter: username")
        try assertFailed("/register?username=&password=p", "Missing parameter: username")
        try assertFailed("/register?username=zed", "Missing parameter: password")
        try assertFailed("/register?username=admin&password=other", "Username already used: admin")
        try assertToken("/login?username=admin&password=1234", Self.adminToken)
        // Exact and case-sensitive: another letter case is another user.
        XCTAssertNotNil(try loginToken(from: "/register?username=Admin&password=other"))
        try assertToken("/login?username=admin&password=1234", Self.adminToken)
    }

    func testAnyNonEmptyNameIsAcceptedAsGiven() throws {
        let long = String(repeating: "x", count: 5_000)
        let names = ["with+space", "J%C3%BCrgen", "%F0%9F%8D%B0", "a%2Fb%5C%22", long]
        for name in names {
            let token = try XCTUnwrap(try loginToken(from: "/register?username=\(name)&password=p%26q"), name)
            try assertToken("/login?username=\(name)&password=p%26q", token)
        }
        try assertFailed("/register?username=J%C3%BCrgen&password=x", "Username already used: Jürgen")
        try assertFailed("/register?username=a%2Fb%5C%22&password=x", #"Username already used: a\/b\\\""#)
    }

    func testNamesAndPasswordsCompareByteForByte() throws {
        // ü composed (C3 BC) and decomposed (75 CC 88): canonically equivalent, other bytes.
        let composed = try XCTUnwrap(try loginToken(from: "/register?username=J%C3%BCrgen&password=m%C3%BC"))
        let decomposed = try XCTUnwrap(try loginToken(from: "/register?username=Ju%CC%88rgen&password=mu%CC%88"))
        XCTAssertNotEqual(composed, decomposed)
        try assertToken("/login?username=Ju%CC%88rgen&password=mu%CC%88", decomposed)
        try assertFailed("/login?username=J%C3%BCrgen&password=mu%CC%88", "Wrong password for username: Jürgen")
        try assertFailed("/login?username=%E2%84%AAate&password=x", "No such user with username: \u{212A}ate")
    }

    func testTokensAreMintedInMicrosecondsWithoutATrailingZero() throws {
        var tokens: [String] = []
        for index in 0..<12 {
            tokens.append(try XCTUnwrap(try loginToken(from: "/register?username=user\(index)&password=p")))
        }
        // The clock stands still, so each registration takes the next free microsecond; …520 is skipped.
        XCTAssertEqual(tokens, ["785246913.204511", "785246913.204512", "785246913.204513", "785246913.204514",
                                "785246913.204515", "785246913.204516", "785246913.204517", "785246913.204518",
                                "785246913.204519", "785246913.204521", "785246913.204522", "785246913.204523"])
        for token in tokens + [Self.adminToken, Self.studentToken] {
            XCTAssertNotNil(token.range(of: #"^[1-9][0-9]{8,9}\.[0-9]{5}[1-9]$"#, options: .regularExpression), token)
            // The client keeps the token in a Double and sends its description back.
            XCTAssertEqual("\(try XCTUnwrap(Double(token)))", token)
        }
        for (index, token) in tokens.enumerated() {
            try assertToken("/login?username=user\(index)&password=p", token)
        }
    }

    /// A board or VM that booted without a real-time clock reads 1970, where the token would be
    /// negative (and writing it ended the server); such a clock, and one past the year 2317, mint
    /// from the nearest time a well-formed token names, and the token logs in.
    func testAClockOutsideTheTokensYearsMintsFromTheNearestOne() throws {
        for (clock, expected) in [(Date(timeIntervalSince1970: 100_000.123_457), "100000000.000001"),
                                  (Date(timeIntervalSinceReferenceDate: 2e10), "9999999999.000001")] {
            var options = APIOptions()
            options.clock = { clock }
            let api = try XCTUnwrap(APICatalog.load(["internproducts"], seed: TestServer.shippedSeed, options: options).first)
            let server = try TestServer(responder: MockApp(apis: [api]))
            let registered = try server.request("GET", "/register?username=early&password=bird")
            XCTAssertEqual(registered.text, #"{"status":"SUCCESS","loginToken":"\#(expected)"}"#)
            XCTAssertEqual(try server.request("GET", "/login?username=early&password=bird").text, #"{"status":"SUCCESS","loginToken":"\#(expected)"}"#)
            XCTAssertEqual(try server.request("GET", "/products?loginToken=\(expected)").status, 200)
        }
    }

    func testConcurrentRegistrationsOfOneNameHaveOneWinner() throws {
        let attempts = 24
        let answers = Locked<[String]>([])
        let port = server.port
        DispatchQueue.concurrentPerform(iterations: attempts) { index in
            let text = Self.concurrentGet(port: port, "/register?username=race&password=p\(index)") ?? "no answer"
            answers.withLock { $0.append(text) }
        }
        let all = answers.withLock { $0 }
        XCTAssertEqual(all.count, attempts)
        let winners = all.filter { $0.hasPrefix(#"{"status":"SUCCESS""#) }
        XCTAssertEqual(winners.count, 1, "\(all)")
        XCTAssertEqual(all.filter { $0 == #"{"status":"FAILED","message":"Username already used: race"}"# }.count, attempts - 1)
    }

    func testConcurrentRegistrationsOfDifferentNamesGetDistinctTokens() throws {
        let attempts = 24
        let tokens = Locked<[String]>([])
        let port = server.port
        DispatchQueue.concurrentPerform(iterations: attempts) { index in
            let text = Self.concurrentGet(port: port, "/register?username=crowd\(index)&password=p") ?? ""
            if let token = try? JSONParser.parse(Array(text.utf8)).objectValue?["loginToken"]?.stringValue {
                tokens.withLock { $0.append(token) }
            }
        }
        let all = tokens.withLock { $0 }
        XCTAssertEqual(all.count, attempts)
        XCTAssertEqual(Set(all).count, attempts)
        XCTAssertFalse(all.contains { $0.hasSuffix("0") })
    }

    /// One GET on its own connection, from any thread.
    private static func concurrentGet(port: Int, _ target: String) -> String? {
        guard let client = try? BlockingClient(port: port) else { return nil }
        client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return try? client.readResponse().text
    }

    // MARK: Products

    func testProductsAreNewestFirstWithDecodablePictures() throws {
        let raw = try productsBody()
        let root = try XCTUnwrap(JSONParser.parse(raw).objectValue)
        XCTAssertEqual(root.keys, ["status", "products"])
        XCTAssertEqual(root["status"], .string("SUCCESS"))
        let products = try XCTUnwrap(root["products"]?.arrayValue)
        XCTAssertTrue((12...24).contains(products.count))

        var dates: [Int] = []
        var titles: [String] = []
        for product in products {
            let object = try XCTUnwrap(product.objectValue)
            XCTAssertEqual(object.keys, ["tags", "title", "image", "description", "date"])
            let title = try XCTUnwrap(object["title"]?.stringValue)
            titles.append(title)
            let dateText = try XCTUnwrap(object["date"]?.numberText)
            XCTAssertTrue(dateText.allSatisfy(\.isNumber), "date \(dateText) of \(title) is not a JSON integer")
            let date = try XCTUnwrap(Int(dateText))
            XCTAssertTrue((1_609_459_200...1_672_531_199).contains(date), title)
            dates.append(date)
            let tags = try XCTUnwrap(object["tags"]?.arrayValue).compactMap(\.stringValue)
            XCTAssertTrue((2...5).contains(tags.count), title)
            XCTAssertEqual(Set(tags).count, tags.count, title)
            let description = try XCTUnwrap(object["description"]?.stringValue)
            XCTAssertTrue((200...1500).contains(description.count), title)
            XCTAssertGreaterThanOrEqual(description.split(separator: "\n").count, 3, title)
            try assertPicture(try XCTUnwrap(object["image"]?.stringValue), title)
        }
        XCTAssertEqual(dates, dates.sorted(by: >))
        XCTAssertEqual(Set(dates).count, dates.count)
        XCTAssertEqual(Array(titles.prefix(3)), ["Coconut yoghurt cake", "Burnt butter, almond cake", "Tart al limone"])
        XCTAssertEqual(products[0].objectValue?["tags"], .array([.string("coconut"), .string("yoghurt"), .string("cake")]))
        XCTAssertEqual(products[1].objectValue?["tags"], .array([.string("almond"), .string("cake"), .string("gluten-free")]))

        // On the wire every `/` is `\/`, and `°` is raw UTF-8.
        let text = String(decoding: raw, as: UTF8.self)
        XCTAssertTrue(text.contains(#"\/"#))
        XCTAssertEqual(text.components(separatedBy: "/").count, text.components(separatedBy: #"\/"#).count)
        XCTAssertTrue(text.contains("180°C"))
        XCTAssertFalse(text.contains(#"\u"#))
        XCTAssertTrue(text.hasPrefix(#"{"status":"SUCCESS","products":[{"tags":["coconut","yoghurt","cake"],"title":"Coconut yoghurt cake","image":""#))
        XCTAssertFalse(text.contains("\n"))
    }

    /// Standard base64 of a PNG of 200–1200 pixels a side and 5–80 KiB.
    private func assertPicture(_ base64: String, _ title: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let data = try XCTUnwrap(Data(base64Encoded: base64), "\(title): not base64", file: file, line: line)
        let bytes = [UInt8](data)
        XCTAssertTrue((5_120...81_920).contains(bytes.count), "\(title): \(bytes.count) bytes", file: file, line: line)
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], title, file: file, line: line)
        XCTAssertEqual(String(decoding: bytes[12..<16], as: UTF8.self), "IHDR", title, file: file, line: line)
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        XCTAssertTrue((200...1200).contains(width) && (200...1200).contains(height), "\(title): \(width)×\(height)",
                      file: file, line: line)
        XCTAssertEqual(Array(bytes.suffix(8)), Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82], title, file: file, line: line)
    }

    func testEveryValidTokenGetsTheSameList() throws {
        let admin = try productsBody()
        XCTAssertEqual(try get("/products?loginToken=\(Self.studentToken)").body, admin)
        let token = try XCTUnwrap(try loginToken(from: "/register?username=newcomer&password=p"))
        XCTAssertEqual(try get("/products?loginToken=\(token)").body, admin)
        XCTAssertEqual(try get("/PRODUCTS?loginToken=\(token)&extra=1").body, admin)
    }

    func testProductsRefusesAnythingButAnExactToken() throws {
        try assertFailed("/products", "Missing parameter: loginToken")
        try assertFailed("/products?loginToken=", "Missing parameter: loginToken")
        try assertFailed("/products?logintoken=\(Self.adminToken)", "Missing parameter: loginToken")
        try assertFailed("/products?loginToken=%ZZ", "Missing parameter: loginToken")
        try assertFailed("/products?loginToken=nope", "Invalid login token")
        try assertFailed("/products?loginToken=668961808.7728460", "Invalid login token")
        try assertFailed("/products?loginToken=%20668961808.772846", "Invalid login token")
        try assertFailed("/products?loginToken=+668961808.772846", "Invalid login token")
        // The token is read from the query only.
        let fromHeader = try server.request("GET", "/products", headers: [("Authorization", "Bearer \(Self.adminToken)")])
        XCTAssertEqual(fromHeader.text, #"{"status":"FAILED","message":"Missing parameter: loginToken"}"#)
    }

    /// A token is found by the number its text spells, so every other spelling of that number, and
    /// every text that spells none, must miss.
    func testOnlyTheExactTextOfALiveTokenIsAccepted() throws {
        for spelling in ["0668961808.772846", "668961808.77284", "668961808.7728461", "6689618087.72846",
                         "66896180.8772846", "668961808772846", "668961808,772846", "668961808.772846%20",
                         "-668961808.772846", "668961808.-772846", "668961808.77284%D9%A6", "%EF%BC%96" + "68961808.772846",
                         "668961808..772846", ".668961808772846", "668961808772846.", "0.000001",
                         "999999999999.999999", "9999999999999.999999", "99999999999999999999.999999"] {
            try assertFailed("/products?loginToken=\(spelling)", "Invalid login token")
        }
        // Registered at 785246913.204510: the first free microsecond without a trailing 0.
        let token = try XCTUnwrap(try loginToken(from: "/register?username=exact&password=p"))
        XCTAssertEqual(token, "785246913.204511")
        XCTAssertEqual(try get("/products?loginToken=\(token)").body, try productsBody())
        try assertFailed("/products?loginToken=0\(token)", "Invalid login token")
        try assertFailed("/products?loginToken=785246913.20451", "Invalid login token")
    }

    // MARK: Paths, methods, query parsing

    func testPathsMatchInAnyLetterCaseButOtherwiseExactly() throws {
        try assertToken("/LOGIN?username=admin&password=1234", Self.adminToken)
        try assertToken("/Login?username=admin&password=1234", Self.adminToken)
        XCTAssertNotNil(try loginToken(from: "/ReGiStEr?username=casey&password=p"))
        try assertFailed("/REGISTER?username=casey&password=p", "Username already used: casey")
        XCTAssertEqual(try get("/Products?loginToken=\(Self.adminToken)").body, try productsBody())
        for (path, hint) in [("/login/", "/login"), ("/products/1", "/products"), ("/product", "/products"),
                             ("/register/x", "/register"), ("//login", "/login")] {
            let response = try server.request("GET", path + "?username=admin&password=1234")
            XCTAssertEqual(response.status, 404, path)
            XCTAssertEqual(response.text, #"{"error":"not_found","path":""# + path + #"","hint":"GET "# + hint + #""}"#)
        }
    }

    func testQueryParsingFollowsGCDWebServersFormParser() throws {
        // `+` is a space, on register and login alike.
        let token = try XCTUnwrap(try loginToken(from: "/register?username=ana+maria&password=a+b"))
        try assertToken("/login?username=ana%20maria&password=a%20b", token)
        try assertFailed("/login?username=ana+maria&password=a%2Bb", "Wrong password for username: ana maria")
        // Decoded, then JSON-escaped with `\/`.
        XCTAssertEqual(try body("/login?username=a%2Fb&password=x"),
                       #"{"status":"FAILED","message":"No such user with username: a\/b"}"#)
        try assertFailed("/login?username=tab%09cr%0Dnl%0Abell%07&password=x", #"No such user with username: tab\tcr\rnl\nbell\u0007"#)
        try assertFailed("/login?username=J%C3%BCrgen&password=x", "No such user with username: Jürgen")
        // A repeated key keeps its last value.
        try assertToken("/login?username=x&username=admin&password=1234", Self.adminToken)
        try assertFailed("/login?username=admin&password=1234&password=bad", "Wrong password for username: admin")
        try assertFailed("/login?username=admin&username=&password=1234", "Missing parameter: username")
        // Malformed escapes and invalid UTF-8 drop their pair, as if absent.
        try assertFailed("/login?username=admin&password=%ZZ", "Missing parameter: password")
        try assertFailed("/login?username=%zz&password=1234", "Missing parameter: username")
        try assertFailed("/login?username=admin&password=12%3", "Missing parameter: password")
        try assertToken("/login?username=admin&username=%E2%28&password=1234", Self.adminToken)
        try assertToken("/login?username=admin&password=1234&password=%C3", Self.adminToken)
        try assertFailed("/login?user%ZZname=x&username=admin&password=bad", "Wrong password for username: admin")
        // Empty pieces are skipped; a key without `=` is empty.
        try assertToken("/login?&&username=admin&&password=1234&", Self.adminToken)
        try assertFailed("/login?username&password=1234", "Missing parameter: username")
        // `=` after the first belongs to the value.
        try assertFailed("/login?username=admin&password=12=34", "Wrong password for username: admin")
    }

    func testBodyAndAuthorizationAreIgnored() throws {
        let response = try server.request("GET", "/login", headers: [("Content-Type", "application/x-www-form-urlencoded"),
                                                                    ("Authorization", "Basic YWRtaW46MTIzNA==")],
                                          body: "username=admin&password=1234")
        XCTAssertEqual(response.text, #"{"status":"FAILED","message":"Missing parameter: username"}"#)
        assertAPIHeaders(response)
    }

    func testHeadRunsTheSameHandlerWithoutABody() throws {
        let head = try server.request("HEAD", "/register?username=headless&password=p")
        XCTAssertEqual(head.status, 200)
        XCTAssertTrue(head.body.isEmpty)
        XCTAssertEqual(head.headers["Content-Length"], "52")
        assertAPIHeaders(head)
        // HEAD registered the user.
        try assertFailed("/register?username=headless&password=p", "Username already used: headless")
        try assertToken("/login?username=headless&password=p", "785246913.204511")

        let products = try server.request("HEAD", "/products?loginToken=\(Self.adminToken)")
        XCTAssertEqual(products.headers["Content-Length"], String(try productsBody().count))
        let failed = try server.request("HEAD", "/products?loginToken=bad")
        XCTAssertEqual(failed.status, 200)
        XCTAssertEqual(failed.headers["Content-Length"], String(#"{"status":"FAILED","message":"Invalid login token"}"#.utf8.count))
    }

    func testOtherMethodsAre405WithAFailedBody() throws {
        for (method, path) in [("POST", "/login?username=admin&password=1234"), ("PUT", "/Register"),
                               ("DELETE", "/products"), ("PATCH", "/PRODUCTS"), ("POST", "/register?username=poster&password=p")] {
            let response = try server.request(method, path)
            XCTAssertEqual(response.status, 405, "\(method) \(path)")
            XCTAssertEqual(response.reason, "Method Not Allowed")
            XCTAssertEqual(response.headers["Allow"], "GET, HEAD, OPTIONS")
            XCTAssertEqual(response.text, #"{"status":"FAILED","message":"Method not allowed: "# + method + #""}"#)
            assertAPIHeaders(response)
        }
        // Nothing was created.
        try assertFailed("/login?username=poster&password=p", "No such user with username: poster")

        let preflight = try server.request("OPTIONS", "/products")
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.headers["Access-Control-Allow-Methods"], "GET, HEAD, OPTIONS")
        XCTAssertEqual(preflight.headers["Access-Control-Allow-Origin"], "*")
    }

    // MARK: Reset, state, faults

    func testResetForgetsRegisteredUsersAndTheirTokens() throws {
        let token = try XCTUnwrap(try loginToken(from: "/register?username=bob&password=p"))
        XCTAssertEqual(try get("/products?loginToken=\(token)").body, try productsBody())
        let reset = try server.request("POST", "/_mock/reset/internproducts")
        XCTAssertEqual(reset.status, 200)
        XCTAssertEqual(reset.text, #"{"reset":["internproducts"]}"#)
        try assertFailed("/products?loginToken=\(token)", "Invalid login token")
        try assertFailed("/login?username=bob&password=p", "No such user with username: bob")
        try assertToken("/login?username=admin&password=1234", Self.adminToken)
        try assertToken("/login?username=endavaStudent&password=schoolOfiOS", Self.studentToken)
        // The name is free again.
        XCTAssertNotNil(try loginToken(from: "/register?username=bob&password=p"))
    }

    func testStateExportThenLoadChangesNoAnswer() throws {
        let before = try productsBody()
        let token = try XCTUnwrap(try loginToken(from: "/register?username=carol&password=c"))
        let exported = api.exportState()
        let document = try JSONParser.parse(exported)

        // Images are inlined as base64, users carry their tokens.
        let root = try XCTUnwrap(document.objectValue)
        XCTAssertEqual(root.keys, ["users", "products"])
        let users = try XCTUnwrap(root["users"]?.arrayValue)
        XCTAssertEqual(users.last, .object(JSONObject([("username", .string("carol")), ("password", .string("c")),
                                                      ("loginToken", .string(token))])))
        let firstProduct = try XCTUnwrap(root["products"]?.arrayValue?.first?.objectValue)
        XCTAssertEqual(firstProduct.keys, ["title", "description", "tags", "date", "image"])
        try assertPicture(try XCTUnwrap(firstProduct["image"]?.stringValue), "exported")

        try api.loadState(SeedJSON(document))
        XCTAssertEqual(try productsBody(), before)
        try assertToken("/login?username=carol&password=c", token)
        XCTAssertEqual(api.exportState(), exported)

        // Reset still goes to the seed: carol is gone.
        XCTAssertEqual(try server.request("POST", "/_mock/reset").status, 200)
        XCTAssertEqual(try server.request("GET", "/login?username=carol&password=c").text,
                       #"{"status":"FAILED","message":"No such user with username: carol"}"#)

        // A fresh server loading the same document answers the same bytes.
        let other = try Self.makeAPI()
        try other.loadState(SeedJSON(document))
        let otherServer = try TestServer(responder: MockApp(apis: [other]))
        XCTAssertEqual(try otherServer.request("GET", "/products?loginToken=\(token)").body, before)
    }

    /// The body is written on first use, once per product list: a loaded list answers its own,
    /// and reset answers the seed's again, byte for byte.
    func testEachProductListAnswersItsOwnBody() throws {
        let seeded = try productsBody()
        let document = try editedState { state in
            state["products"] = Array((state["products"] as! [[String: Any]]).suffix(2).reversed())
        }
        try api.loadState(SeedJSON(document))
        let loaded = try JSONParser.parse(try productsBody())
        let titles = loaded.objectValue?["products"]?.arrayValue?.compactMap { $0.objectValue?["title"]?.stringValue }
        let seededTitles = try JSONParser.parse(seeded).objectValue?["products"]?.arrayValue?.compactMap { $0.objectValue?["title"]?.stringValue }
        XCTAssertEqual(titles, seededTitles.map { Array($0.suffix(2)) })
        XCTAssertEqual(try server.request("POST", "/_mock/reset/internproducts").status, 200)
        XCTAssertEqual(try productsBody(), seeded)
        try api.loadState(SeedJSON(document))
        XCTAssertEqual(try JSONParser.parse(try productsBody()), loaded)
    }

    func testLoadedUsersWithoutATokenGetOneMinted() throws {
        let document = try editedState { state in
            state["users"] = [["username": "dora", "password": "d"], ["username": "eve", "password": "e"],
                              ["username": "fay", "password": "f", "loginToken": "785246913.204511"]]
        }
        try api.loadState(SeedJSON(document))
        try assertToken("/login?username=fay&password=f", "785246913.204511")
        try assertToken("/login?username=dora&password=d", "785246913.204512")
        try assertToken("/login?username=eve&password=e", "785246913.204513")
        try assertFailed("/login?username=admin&password=1234", "No such user with username: admin")
        try assertFailed("/products?loginToken=\(Self.adminToken)", "Invalid login token")
        // Tokens are filed by their users' places, which minting reorders: each is live where it went.
        let products = try get("/products?loginToken=785246913.204511").text
        XCTAssertTrue(products.hasPrefix(#"{"status":"SUCCESS","products":["#), products)
        for token in ["785246913.204512", "785246913.204513"] {
            XCTAssertEqual(try get("/products?loginToken=\(token)").text, products, token)
        }
    }

    func testBadStateDocumentsAreRefusedWithTheirPathAndChangeNothing() throws {
        let token = try XCTUnwrap(try loginToken(from: "/register?username=keeper&password=k"))
        let before = try productsBody()
        let pngBase64 = try XCTUnwrap(try exportedDocument().objectValue?["products"]?.arrayValue?[0].objectValue?["image"]?.stringValue)
        var truncated = Array(try XCTUnwrap(Data(base64Encoded: pngBase64)))
        truncated.removeLast(12)
        var badCRC = Array(try XCTUnwrap(Data(base64Encoded: pngBase64)))
        badCRC[40] ^= 0xFF

        func product(_ key: String, _ value: Any) -> (inout [String: Any]) -> Void {
            { state in
                var products = state["products"] as! [[String: Any]]
                products[2][key] = value
                state["products"] = products
            }
        }
        let cases: [(String, (inout [String: Any]) -> Void)] = [
            ("$.users", { $0["users"] = "admin" }),
            ("$.products", { $0.removeValue(forKey: "products") }),
            ("$.users[1].username", { $0["users"] = [["username": "x", "password": "p"], ["username": "x", "password": "q"]] }),
            ("$.users[0].password", { $0["users"] = [["username": "x", "password": ""]] }),
            ("$.users[0].loginToken", { $0["users"] = [["username": "x", "password": "p", "loginToken": 668961808.772846]] }),
            ("$.users[1].loginToken", {
                $0["users"] = [["username": "x", "password": "p", "loginToken": "668961808.772846"],
                               ["username": "y", "password": "p", "loginToken": "668961808.772846"]]
            }),
            // A state document names pictures by file as the seed file does (docs/admin.md#one-reader-for-seeds-and-states):
            // a file that is not there, or outside the seed folder, is refused.
            ("$.products[2].image", product("image", "images/no-such-picture.png")),
            ("$.products[2].image", product("image", "../internproducts/images/tart-al-limone.png")),
            ("$.products[2].image", product("image", "not base64!")),
            ("$.products[2].image", product("image", Data("GIF89a, a picture of sorts".utf8).base64EncodedString())),
            ("$.products[2].image", product("image", Data(truncated).base64EncodedString())),
            ("$.products[2].image", product("image", Data(badCRC).base64EncodedString())),
            ("$.products[2].image", product("image", pngBase64.prefix(76) + "\n" + pngBase64.dropFirst(76))),
            ("$.products[2].title", product("title", "")),
            ("$.products[2].title", product("title", "Two\nlines")),
            ("$.products[2].title", product("title", String(repeating: "t", count: 61))),
            ("$.products[2].title", product("title", "Coconut yoghurt cake")),
            ("$.products[2].description", product("description", "1. Too short.\n2. Much too short.\n3. Done.")),
            ("$.products[2].description", product("description", String(repeating: "One long line. ", count: 20))),
            ("$.products[2].description", product("description",
                                                  "1. " + String(repeating: "a", count: 200) + "\n\n2. b\n3. c")),
            ("$.products[2].tags", product("tags", ["lonely"])),
            ("$.products[2].tags[1]", product("tags", ["lemon", "Tart"])),
            ("$.products[2].tags[1]", product("tags", ["lemon", "lemon"])),
            ("$.products[2].tags[0]", product("tags", ["-lemon", "tart"])),
            ("$.products[2].date", product("date", 1_577_836_800)),
            ("$.products[2].date", product("date", 1_669_212_000.5)),
            ("$.products[2].date", product("date", "1669212000")),
            ("$.products[2].date", product("date", 1_669_731_300)),
        ]
        for (path, edit) in cases {
            let document = try editedState(edit)
            XCTAssertThrowsError(try api.loadState(SeedJSON(document)), path) { error in
                XCTAssertEqual((error as? SeedError)?.path, path, "\(error)")
            }
        }
        XCTAssertEqual(try productsBody(), before)
        try assertToken("/login?username=keeper&password=k", token)
        XCTAssertNoThrow(try api.loadState(SeedJSON(try editedState { _ in })))
    }

    /// A Mac's disk would find the picture, Linux's (a Docker image) would not: refused on both.
    func testPicturePathsInAnotherLetterCaseAreRefusedWithTheRealName() throws {
        let files = FileManager.default, shipped = TestServer.shippedSeed.url
        let seed = files.temporaryDirectory.appendingPathComponent("mock-seed-\(UUID().uuidString)")
        defer { try? files.removeItem(at: seed) }
        try files.createDirectory(at: seed, withIntermediateDirectories: true)
        for name in ["internproducts.json", "internproducts"] {
            try files.copyItem(at: shipped.appendingPathComponent(name), to: seed.appendingPathComponent(name))
        }
        // Renamed by way of another name: on a disk that ignores case, the new name is the old one.
        func rename(_ folder: URL, _ from: String, _ to: String) throws {
            let between = folder.appendingPathComponent(UUID().uuidString)
            try files.moveItem(at: folder.appendingPathComponent(from), to: between)
            try files.moveItem(at: between, to: folder.appendingPathComponent(to))
        }
        let folder = seed.appendingPathComponent("internproducts")
        try rename(folder, "images", "Images")
        try rename(folder.appendingPathComponent("Images"), "coconut-yoghurt-cake.png", "Coconut-Yoghurt-Cake.png")

        XCTAssertThrowsError(try APICatalog.load(["internproducts"], seed: SeedDirectory(url: seed), options: APIOptions())) { error in
            XCTAssertTrue("\(error)".contains("$.products[0].image: images/coconut-yoghurt-cake.png differs in letter case"
                                                + " from the file's real name Images/Coconut-Yoghurt-Cake.png"), "\(error)")
        }
    }

    /// Clients keep the token as a string, so any non-empty text loads and works (issue 31 reversed
    /// the refusal of tokens not spelled as minted; docs/apis/internproducts.md#what-the-seed-refuses).
    func testStateTokensAreAnyNonEmptyText() throws {
        let products = try productsBody()
        for token in ["0668961808.772846", "12345678.123451", "66896180877.284651", "668961808.77284", "668961808.7728461",
                      "668961808772846", "-668961808.772846", "668961808.-77284", "６68961808.772846", " 668961808.772846",
                      "abc", "123.456", "student-1", "668961808.772840", "785000000.123450", "1.5"] {
            try api.loadState(SeedJSON(try editedState { $0["users"] = [["username": "x", "password": "p", "loginToken": token]] }))
            let escaped = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
            XCTAssertEqual(try body("/login?username=x&password=p"), #"{"status":"SUCCESS","loginToken":""# + token + #""}"#, token)
            XCTAssertEqual(try get("/products?loginToken=\(escaped)").body, products, token)
        }
        let empty = try editedState { $0["users"] = [["username": "x", "password": "p", "loginToken": ""]] }
        XCTAssertThrowsError(try api.loadState(SeedJSON(empty))) { error in
            XCTAssertEqual(error as? SeedError, SeedError(path: "$.users[0].loginToken", problem: "must not be empty"))
        }
        for token in ["100000000.000001", "9999999999.999999"] {
            try api.loadState(SeedJSON(try editedState { $0["users"] = [["username": "x", "password": "p", "loginToken": token]] }))
            try assertToken("/login?username=x&password=p", token)
            XCTAssertEqual(try get("/products?loginToken=\(token)").body, products)
        }
        let twice = try editedState { state in
            state["users"] = [["username": "x", "password": "p", "loginToken": "700000000.000001"],
                              ["username": "y", "password": "p", "loginToken": "700000000.000001"]]
        }
        XCTAssertThrowsError(try api.loadState(SeedJSON(twice))) { error in
            XCTAssertEqual(error as? SeedError, SeedError(path: "$.users[1].loginToken", problem: "duplicate loginToken 700000000.000001"))
        }
    }

    func testInjectedFaultUsesTheAPIsFormat() throws {
        for status in [503, 500] {
            let response = api.injectedFault(status: status)
            XCTAssertEqual(response.status, status)
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"status":"FAILED","message":"Service unavailable"}"#)
            XCTAssertEqual(response.headers["Content-Type"], "application/json")
            XCTAssertEqual(response.headers["Cache-Control"], "no-cache")
        }
    }

    // MARK: Size limits

    /// GCDWebServer's unavailable answer, as the API's own 503: status, body and headers.
    private func assertUnavailable(_ target: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let response = try get(target, file: file, line: line)
        XCTAssertEqual(response.status, 503, target, file: file, line: line)
        XCTAssertEqual(response.text, #"{"status":"FAILED","message":"Service unavailable"}"#, file: file, line: line)
    }

    /// The user table at its cap (lowered from 100,000 to the seed's two users and two more):
    /// a register past it is the API's 503, and the user is not stored (docs/apis/internproducts.md#size-limits).
    func testRegistersPastTheUserCapAreRefusedAndNotStored() throws {
        try restart { $0.rowLimit = 4 }
        XCTAssertNotNil(try loginToken(from: "/register?username=u1&password=p"))
        XCTAssertNotNil(try loginToken(from: "/register?username=u2&password=p"))
        try assertUnavailable("/register?username=u3&password=p")
        try assertFailed("/login?username=u3&password=p", "No such user with username: u3")
        XCTAssertEqual(try server.request("POST", "/_mock/reset/internproducts").status, 200)
        XCTAssertNotNil(try loginToken(from: "/register?username=u3&password=p"))
    }

    /// Stored text may take half of the memory budget (here 32 KiB of 64 KiB): users of 8,000
    /// bytes are stored while they fit, then refused with the API's 503 and not stored; a reset
    /// gives the share back.
    func testRegistersPastTheStoredShareAreRefusedAndNotStored() throws {
        try restart { $0.storedText = StoredText(budget: MemoryBudget(limit: 64 << 10, limitPerAddress: 32 << 10)) }
        let password = String(repeating: "p", count: 4000)
        func register(_ index: Int) -> String {
            "/register?username=\(index)" + String(repeating: "n", count: 3996) + "&password=" + password
        }
        // 3 × (8,000 + 256) bytes fit in 32 KiB, a fourth does not.
        for index in 0..<3 { XCTAssertNotNil(try loginToken(from: register(index)), "user \(index)") }
        try assertUnavailable(register(3))
        try assertUnavailable(register(4))
        let refusedName = "4" + String(repeating: "n", count: 3996)
        try assertFailed("/login?username=\(refusedName)&password=\(password)", "No such user with username: \(refusedName)")
        XCTAssertEqual(try server.request("POST", "/_mock/reset/internproducts").status, 200)
        XCTAssertNotNil(try loginToken(from: register(3)))
    }

}
