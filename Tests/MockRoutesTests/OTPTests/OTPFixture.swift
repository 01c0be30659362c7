import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// A server with only the OTP API, an advanceable clock and a captured console; requests are sent
/// as the course's URLSession client sends them: a JSON body labelled as a form, or not labelled.
class OTPTestCase: XCTestCase {
    static let start = Date(timeIntervalSince1970: 1_714_583_109.125) // 2024-05-01T17:05:09.125Z
    static let alexToken = "seed_token_alex_rivera_000000001"
    static let priyaToken = "seed_token_priya_natarajan_00002"
    static let jordanToken = "seed_token_jordan_lee_0000000003"
    static let formType = "application/x-www-form-urlencoded"

    let clock = Locked(OTPTestCase.start)
    let console = Locked<[String]>([])
    var api: (any MockAPI)!
    var server: TestServer!

    override func setUpWithError() throws {
        try startServer()
    }

    override func tearDown() {
        server = nil
        api = nil
    }

    /// (Re)starts the server; `code` and `ttl` are `--otp-code` and `--otp-ttl`.
    func startServer(code: String? = nil, ttl: Int = 600, settings: AppSettings = AppSettings(),
                     issuedTokenLimit: Int = APIOptions().issuedTokenLimit) throws {
        var options = APIOptions()
        options.issuedTokenLimit = issuedTokenLimit
        options.otpCode = code
        options.otpTTL = ttl
        options.clock = { [clock] in clock.withLock { $0 } }
        options.console = { [console] line in console.withLock { $0.append(line) } }
        let apis = try APICatalog.load(["otp"], seed: TestServer.shippedSeed, options: options)
        api = try XCTUnwrap(apis.first)
        server = try TestServer(responder: MockApp(apis: apis, settings: settings))
    }

    func advanceClock(by seconds: TimeInterval) {
        clock.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    // MARK: Requests

    func post(_ path: String, _ body: String, token: String? = nil,
              contentType: String? = OTPTestCase.formType) throws -> ClientResponse {
        try post(path, Array(body.utf8), token: token, contentType: contentType)
    }

    func post(_ path: String, _ body: [UInt8], token: String? = nil,
              contentType: String? = OTPTestCase.formType) throws -> ClientResponse {
        var headers: [(String, String)] = []
        if let contentType { headers.append(("Content-Type", contentType)) }
        if let token { headers.append(("x-authtoken", token)) }
        return try server.request("POST", path, headers: headers, body: body)
    }

    func send(_ phone: String) throws -> ClientResponse {
        try post("/api/send_verification_code", #"{"phone_number":"\#(phone)"}"#)
    }

    func verify(_ phone: String, _ code: String) throws -> ClientResponse {
        try post("/api/verify_code", #"{"e164_phone_number":"\#(phone)","code":"\#(code)"}"#)
    }

    /// Sends a code and returns it as the console printed it.
    func sendAndReadCode(_ phone: String) throws -> String {
        XCTAssertEqual(try send(phone).text, #"{"status":"ok"}"#)
        let line = try XCTUnwrap(console.withLock { $0.last })
        return String(try XCTUnwrap(line.split(separator: " ").dropFirst(2).first))
    }

    /// A whole login: send, verify; the verify answer as JSON.
    func logIn(_ phone: String) throws -> JSONObject {
        let response = try verify(phone, try sendAndReadCode(phone))
        return try object(response)
    }

    func readUser(_ token: String) throws -> ClientResponse {
        try post("/api/user", "{}", token: token)
    }

    func outbox(_ query: String = "") throws -> ClientResponse {
        try server.request("GET", "/_mock/otp/outbox" + query)
    }

    // MARK: Assertions

    func object(_ response: ClientResponse, file: StaticString = #filePath, line: UInt = #line) throws -> JSONObject {
        XCTAssertEqual(response.status, 200, response.text, file: file, line: line)
        return try XCTUnwrap(try JSONParser.parse(response.body).objectValue, file: file, line: line)
    }

    func assertError(_ response: ClientResponse, _ code: String, _ message: String,
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, 200, file: file, line: line)
        XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8", file: file, line: line)
        XCTAssertEqual(response.text, #"{"error_code":"\#(code)","error_message":"\#(message)","status":"error"}"#,
                       file: file, line: line)
    }

    func assertWellFormed(_ text: String?, length: Int, file: StaticString = #filePath, line: UInt = #line) {
        let text = text ?? ""
        XCTAssertEqual(text.count, length, text, file: file, line: line)
        XCTAssertTrue(text.unicodeScalars.allSatisfy {
            ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }, text, file: file, line: line)
    }
}

extension JSONObject {
    subscript(string key: String) -> String? { self[key]?.stringValue }
    var user: JSONObject? { self["user"]?.objectValue }
}
