import Foundation
import MockHTTP
import MockApp
import MockKit
import TestSupport
import XCTest

/// Each API seeded with many rows (made here, not committed): the lookups that make a request cost
/// the same at 10 rows as at 100,000 must keep answering right after deletes, resets and state loads.
final class LargeSeedTests: XCTestCase {
    static let rows = 20_000

    private var folder: URL!
    private var server: TestServer!
    private var api: (any MockAPI)!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("large-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        server = nil
        api = nil
        try FileManager.default.removeItem(at: folder)
    }

    /// Serves one API from `document` written as its seed file; the clock stands still at `now`.
    private func serve(_ name: String, _ document: String, now: Date = Date(timeIntervalSince1970: 1_461_344_400)) throws {
        try Data(document.utf8).write(to: folder.appendingPathComponent("\(name).json"))
        var options = APIOptions()
        options.clock = { now }
        options.console = { _ in }
        let apis = try APICatalog.load([name], seed: SeedDirectory(url: folder), options: options)
        api = apis[0]
        server = try TestServer(responder: MockApp(apis: apis))
    }

    /// Reset, then the exported state loaded back: the round trip every test repeats its checks after.
    private func reloadExportedState() throws {
        let exported = api.exportState()
        api.reset()
        try api.loadState(JSONParser.parse(exported))
        XCTAssertEqual(api.exportState(), exported)
    }

    private func form(_ method: String, _ target: String, _ body: String) throws -> ClientResponse {
        try server.request(method, target, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body)
    }

    private func json(_ response: ClientResponse, file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
        XCTAssertEqual(response.status, 200, response.text, file: file, line: line)
        return try JSONParser.parse(response.body)
    }

    // MARK: WSUV Twitter

    /// `2016-01-01 00:00:00` plus `n` seconds.
    private static func wsuvStamp(_ n: Int) -> String {
        CivilTime(unixSeconds: 1_451_606_400 + n).sqlText
    }

    func testWSUVNamesAndTheDateIndex() throws {
        let n = Self.rows
        var document = #"{"users":["#
        document += (0..<n).map { #"{"username":"user \#($0)","password":"pw\#($0)","session_token":"0"}"# }.joined(separator: ",")
        document += #"],"tweets":["#
        document += (1...n).map {
            #"{"tweet_id":\#($0),"username":"user \#($0 % n)","time_stamp":"\#(Self.wsuvStamp($0))","tweet":"t\#($0)","isdeleted":0}"#
        }.joined(separator: ",")
        try serve("wsuv", document + "]}")
        let newest = Self.wsuvStamp(n).replacingOccurrences(of: " ", with: "%20")

        func ids(after date: String) throws -> [Int] {
            let tweets = try json(server.request("GET", "/get-tweets.cgi?date=\(date)")).objectValue?["tweets"]?.arrayValue
            return try XCTUnwrap(tweets).compactMap { $0.objectValue?["tweet_id"]?.intValue }
        }
        func login(_ user: Int) throws -> String {
            let answer = try json(form("POST", "/login.cgi", "username=user+\(user)&password=pw\(user)"))
            return try XCTUnwrap(answer.objectValue?["session_token"]?.stringValue)
        }

        XCTAssertEqual(try ids(after: Self.wsuvStamp(n - 3).replacingOccurrences(of: " ", with: "%20")), [n - 2, n - 1, n])
        XCTAssertEqual(try ids(after: "2017").count, n)
        XCTAssertEqual(try ids(after: "2015").count, n)
        let token = try login(7)
        XCTAssertEqual(try form("POST", "/del-tweet.cgi", "username=user+7&session_token=\(token)&tweet_id=7").status, 200)
        XCTAssertEqual(try form("POST", "/add-tweet.cgi", "username=user+7&session_token=\(token)&tweet=new").status, 200)
        XCTAssertEqual(try ids(after: newest), [7, n + 1])
        XCTAssertEqual(try ids(after: Self.wsuvStamp(n - 2).replacingOccurrences(of: " ", with: "%20")), [7, n - 1, n, n + 1])
        XCTAssertEqual(try form("POST", "/register.cgi", "username=user+\(n - 1)&password=x").status, 409)
        XCTAssertEqual(try form("POST", "/register.cgi", "username=user+\(n)&password=x").status, 200)

        try reloadExportedState()
        XCTAssertEqual(try ids(after: newest), [7, n + 1])
        XCTAssertEqual(try form("POST", "/add-tweet.cgi", "username=user+7&session_token=\(token)&tweet=more").status, 200)
        XCTAssertEqual(try form("POST", "/del-tweet.cgi", "username=user+7&session_token=\(token)&tweet_id=7").status, 200)
        XCTAssertEqual(try ids(after: newest), [7, n + 1, n + 2])
        XCTAssertEqual(try form("POST", "/login.cgi", "username=user+\(n)&password=x").status, 200)

        // Reset goes back to the seed, not to the loaded state.
        api.reset()
        XCTAssertEqual(try ids(after: newest), [])
        XCTAssertEqual(try form("POST", "/register.cgi", "username=user+\(n)&password=y").status, 200)
        XCTAssertEqual(try login(n - 1).count, 40)
    }
}
