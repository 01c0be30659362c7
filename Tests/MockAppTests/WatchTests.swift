import Foundation
import MockHTTP
import MockApp
import MockKit
import TestSupport
import XCTest

/// `--watch` (docs/admin.md#live-reload---watch): an edited seed or stub file reloads, a broken one
/// is refused with its place and the running state stays, as a client of the server sees it.
final class WatchTests: XCTestCase {
    private var folder: URL!
    private var server: TestServer!
    private var watcher: SeedWatcher!
    private let lines = Locked<[String]>([])

    private var seedFile: URL { folder.appendingPathComponent("threads.json") }
    private var stubFile: URL { folder.appendingPathComponent("stubs/exercise.json") }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("stubs"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestServer.shippedSeed.url.appendingPathComponent("threads.json"), to: seedFile)
        try Self.stub(status: 201).write(to: stubFile, atomically: true, encoding: .utf8)
        let seed = SeedDirectory(url: folder)
        let apis = try APICatalog.load(["threads"], seed: seed, options: APIOptions())
        let stubs = try StubSet.load(folder: seed.stubsFolder, apis: apis)
        server = try TestServer(responder: MockApp(apis: apis, stubs: stubs))
        watcher = SeedWatcher(seed: seed, apis: apis, stubs: stubs, interval: 0.05) { [lines] line in
            lines.withLock { $0.append(line) }
        }
        watcher.start()
    }

    override func tearDownWithError() throws {
        watcher.stop()
        server = nil
        try FileManager.default.removeItem(at: folder)
    }

    private static func stub(status: Int) -> String {
        #"{"request":{"method":"GET","path":"/api/exercise"},"response":{"status":\#(status)}}"#
    }

    /// The console line the watcher prints next (there is no other way to know the poll has run).
    private func nextLine(after count: Int, timeout: Double = 20) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = lines.withLock({ $0.count > count ? $0[count] : nil }) { return line }
            Thread.sleep(forTimeInterval: 0.02)
        }
        struct Silent: Error {}
        XCTFail("no console line from the watcher in \(timeout) s")
        throw Silent()
    }

    private func login(_ email: String) throws -> Int {
        try server.request("POST", "/api/login", body: "email=\(email)&password=test123").status
    }

    func testAnEditedSeedFileReloadsThatAPI() throws {
        let text = try String(contentsOf: seedFile, encoding: .utf8)
        try text.replacingOccurrences(of: "\"a@a.com\"", with: "\"z@z.com\"").write(to: seedFile, atomically: true, encoding: .utf8)
        XCTAssertEqual(try nextLine(after: 0), "mock-backend: reloaded threads from \(seedFile.path): "
            + "4 users, 4 threads, 12 messages; no live tokens")
        XCTAssertEqual(try login("z@z.com"), 200)
        XCTAssertEqual(try login("a@a.com"), 401)
        XCTAssertEqual(try server.request("POST", "/_mock/reset/threads").status, 200)
        XCTAssertEqual(try login("z@z.com"), 200, "reset goes back to the reloaded seed")
    }

    private func token(_ email: String, _ password: String) throws -> String {
        let answer = try server.request("POST", "/api/login", body: "email=\(email)&password=\(password)")
        XCTAssertEqual(answer.status, 200)
        return try XCTUnwrap(JSONParser.parse(answer.body).objectValue?["token"]?.stringValue)
    }

    private func threads(_ token: String) throws -> Int {
        try server.request("GET", "/api/threads", headers: [("Authorization", "Bearer \(token)")]).status
    }

    /// Issue 30 items 4 and 6: the console line counts what changed, and the tokens of users the
    /// edited seed still has keep working; the others get a 401 whose reason names the reload.
    func testAReloadSaysWhatChangedAndKeepsTheLiveTokensOfUsersStillInTheSeed() throws {
        let bob = try token("b@b.com", "test123"), tester = try token("test@test.com", "test12345")
        // User 4 leaves, with its thread and the messages in it or by it; user 1 starts two threads.
        var seed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: seedFile)) as? [String: Any])
        let threadsBefore = try XCTUnwrap(seed["threads"] as? [[String: Any]])
        let messagesBefore = try XCTUnwrap(seed["messages"] as? [[String: Any]])
        seed["users"] = try XCTUnwrap(seed["users"] as? [[String: Any]]).filter { $0["user_id"] as? Int != 4 }
        seed["threads"] = threadsBefore.filter { $0["user_id"] as? Int != 4 } + [
            ["thread_id": 5, "user_id": 1, "title": "Office hours", "created_at": "2019-11-21 10:00:00"],
            ["thread_id": 6, "user_id": 1, "title": "Exam review", "created_at": "2019-11-21 11:00:00"],
        ]
        let messages = messagesBefore.filter { $0["user_id"] as? Int != 4 && $0["thread_id"] as? Int != 4 }
        seed["messages"] = messages
        try JSONSerialization.data(withJSONObject: seed).write(to: seedFile)
        XCTAssertEqual(try nextLine(after: 0), "mock-backend: reloaded threads from \(seedFile.path): "
            + "3 users (-1), 5 threads (+1), \(messages.count) messages (\(messages.count - messagesBefore.count)); "
            + "1 live token kept, 1 ended (its user is no longer in the seed)")
        XCTAssertEqual(try threads(bob), 200, "bob is still in the seed: his token works")
        XCTAssertEqual(try threads(tester), 401)
        XCTAssertTrue(try server.lastJournalEntry()["reason"]?.stringValue?.hasPrefix("the --watch reload of the seed file at ") == true)
        XCTAssertTrue(try server.lastJournalEntry()["reason"]?.stringValue?.hasSuffix(
            " ended this token: its user is no longer in the seed (or the seed now gives that user another token): log in again") == true)
        XCTAssertEqual(try server.request("POST", "/_mock/reset/threads").status, 200)
        XCTAssertEqual(try threads(bob), 401, "reset still ends every token")
    }

    func testABrokenSeedFileIsRefusedWithItsPlaceAndTheStateStays() throws {
        let text = try String(contentsOf: seedFile, encoding: .utf8)
        try text.replacingOccurrences(of: "\"a@a.com\"", with: "7").write(to: seedFile, atomically: true, encoding: .utf8)
        XCTAssertEqual(try nextLine(after: 0),
                       "mock-backend: \(seedFile.path):13:16: $.users[1].email: expected a string (threads keeps its running state)")
        XCTAssertEqual(try login("a@a.com"), 200)
        try "{\n  \"users\": [\n".write(to: seedFile, atomically: true, encoding: .utf8)
        let syntax = try nextLine(after: 1)
        XCTAssertTrue(syntax.hasPrefix("mock-backend: \(seedFile.path):3:1: not valid JSON: "), syntax)
        XCTAssertTrue(syntax.hasSuffix(" (threads keeps its running state)"), syntax)
        XCTAssertEqual(try login("a@a.com"), 200)
    }

    func testStubFilesReloadAndABrokenOneIsRefused() throws {
        XCTAssertEqual(try server.request("GET", "/api/exercise").status, 201)
        try Self.stub(status: 202).write(to: stubFile, atomically: true, encoding: .utf8)
        XCTAssertEqual(try nextLine(after: 0), "mock-backend: reloaded 1 stubs from \(folder.appendingPathComponent("stubs").path)")
        XCTAssertEqual(try server.request("GET", "/api/exercise").status, 202)
        try Self.stub(status: 2020).write(to: stubFile, atomically: true, encoding: .utf8)
        XCTAssertEqual(try nextLine(after: 1), "mock-backend: \(stubFile.path):1:73: $.response.status: "
            + "expected an HTTP status from 100 to 599 (the stubs in force stay)")
        XCTAssertEqual(try server.request("GET", "/api/exercise").status, 202)
    }
}
