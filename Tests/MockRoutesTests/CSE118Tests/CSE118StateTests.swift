import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// The cse118 API's injected faults and its state export, load and reset (OpenAPITests checks its document).
final class CSE118StateTests: XCTestCase {
    private var api: (any MockAPI)!
    private var server: TestServer!
    private var client: CSE118Client!
    private var seed: CSE118Seed!

    override func setUpWithError() throws {
        api = try XCTUnwrap(APICatalog.load(["cse118"], seed: TestServer.shippedSeed, options: cse118Options()).first)
        server = try TestServer(responder: MockApp(apis: [api]))
        client = CSE118Client(server: server)
        seed = try CSE118Seed()
    }

    override func tearDown() {
        server = nil
        client = nil
        api = nil
    }

    // MARK: Faults

    func testInjectedFaultsUseTheAPIsEnvelope() {
        for status in [503, 500, 429] {
            let response = api.injectedFault(status: status)
            XCTAssertEqual(response.status, status)
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"message":"Service Unavailable","status":\#(status)}"#)
            XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8")
        }
    }

    func testInjectedFaultOverTheWire() throws {
        let token = try client.login(CSE118Account.sammy)
        XCTAssertEqual(try server.request("PUT", "/_mock/faults", body: #"{"error_status":502,"apis":["cse118"]}"#).status, 200)
        assertCSE118(try client.call("POST", "/workspace", token: token, body: #"{"name":"Never made"}"#), 502,
                     #"{"message":"Service Unavailable","status":502}"#)
        XCTAssertEqual(try server.request("DELETE", "/_mock/faults").status, 204)
        let ids = ["Student Workspace", "Molly Workspace", "Anna Workspace"].map { seed.workspace($0, of: CSE118Account.sammy.0) }
        let list = try client.jsonArray(client.call("GET", "/workspace", token: token))
        XCTAssertEqual(list.map { $0["id"] as? String }, ids, "the faulted request changed nothing")
    }

    // MARK: State

    func testStateRoundTripThroughTheControlSurface() throws {
        let sammy = try client.login(CSE118Account.sammy)
        XCTAssertEqual(try client.call("POST", "/workspace", token: sammy, body: #"{"name":"Round trip"}"#).status, 201)
        let before = try client.call("GET", "/workspace", token: sammy).text
        let exported = try server.request("GET", "/_mock/state/cse118")
        XCTAssertEqual(exported.status, 200)
        XCTAssertEqual(exported.body, api.exportState())
        XCTAssertEqual(try server.request("POST", "/_mock/reset/cse118").status, 200)
        let loaded = try server.request("PUT", "/_mock/state/cse118", body: exported.body)
        XCTAssertEqual(loaded.text, #"{"loaded":"cse118"}"#)
        XCTAssertEqual(try client.call("GET", "/workspace", token: sammy).text, before, "the same answer with the same token")
        XCTAssertEqual(try server.request("GET", "/_mock/state/cse118").body, exported.body)
        let refused = try server.request("PUT", "/_mock/state/cse118", body: #"{"members":[],"workspaces":[{}]}"#)
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(refused.text.contains(#""path":"$.workspaces[0].id""#), refused.text)
        XCTAssertEqual(try server.request("GET", "/_mock/state/cse118").body, exported.body)
    }

    func testExportThenLoadChangesNoAnswer() throws {
        let sammy = try client.login(CSE118Account.sammy)
        let will = try client.login(CSE118Account.will)
        let created = try client.json(client.call("POST", "/workspace", token: sammy, body: #"{"name":"Saved"}"#))
        let workspace = try XCTUnwrap(created["id"] as? String)
        XCTAssertEqual(try client.call("POST", "/workspace/\(workspace)/member?mid=\(seed.id(CSE118Account.will.0))", token: sammy).status, 201)
        let channel = try XCTUnwrap(client.json(client.call("POST", "/workspace/\(workspace)/channel", token: sammy, body: #"{"name":"Kept"}"#))["id"] as? String)
        XCTAssertEqual(try client.call("POST", "/channel/\(channel)/message", token: will, body: #"{"content":"a/b é"}"#).status, 201)
        let riley = try client.login(CSE118Account.riley)
        XCTAssertEqual(try client.call("DELETE", "/workspace/\(seed.workspace("Student Workspace", of: CSE118Account.riley.0))", token: riley).status, 200)

        let probes: [(String, String)] = [
            (sammy, "/workspace"), (will, "/workspace"), (riley, "/workspace"), (sammy, "/member"),
            (will, "/channel/\(channel)/message"), (sammy, "/workspace/\(workspace)/member"),
        ]
        let before = try probes.map { try client.call("GET", $0.1, token: $0.0).text }
        let exported = api.exportState()
        XCTAssertTrue(String(decoding: exported, as: UTF8.self).contains(#""fixtureOf":null"#))
        XCTAssertTrue(String(decoding: exported, as: UTF8.self).contains(#""content":"a/b é""#))

        // A fresh API from the shipped seed, then the exported document: the same answers, tokens included.
        let fresh = try XCTUnwrap(APICatalog.load(["cse118"], seed: TestServer.shippedSeed, options: cse118Options()).first)
        try fresh.loadState(SeedJSON(exported))
        XCTAssertEqual(fresh.exportState(), exported)
        let freshServer = try TestServer(responder: MockApp(apis: [fresh]))
        let freshClient = CSE118Client(server: freshServer)
        XCTAssertEqual(try probes.map { try freshClient.call("GET", $0.1, token: $0.0).text }, before)

        // PUT /reset restores the seed's fixtures, whatever document was loaded since: Sammy's reset
        // deletes what he created before the export, Riley's deleted Student Workspace comes back.
        assertCSE118(try freshClient.call("PUT", "/reset", token: sammy), 200, "{}")
        XCTAssertEqual(try freshClient.jsonArray(freshClient.call("GET", "/workspace", token: sammy)).count, 3)
        assertCSE118(try freshClient.call("PUT", "/reset", token: riley), 200, "{}")
        XCTAssertEqual(try freshClient.jsonArray(freshClient.call("GET", "/workspace", token: riley)).map { $0["name"] as? String },
                       ["Student Workspace", "Molly Workspace", "Anna Workspace"])
    }

    func testLoadStateRejectsBadDocumentsAndChangesNothing() throws {
        let token = try client.login(CSE118Account.sammy)
        let before = api.exportState()
        let good = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(before)) as? [String: Any])
        func broken(_ change: (inout [String: Any]) -> Void) throws -> JSONValue {
            var copy = good
            change(&copy)
            return try JSONParser.parse(Array(JSONSerialization.data(withJSONObject: copy)))
        }
        func workspaces(_ document: [String: Any]) -> [[String: Any]] { document["workspaces"] as? [[String: Any]] ?? [] }
        let cases: [(String, JSONValue)] = [
            ("$", .array([])),
            ("$.members", try broken { $0["members"] = nil }),
            ("$.members[1].id", try broken { doc in
                var members = doc["members"] as? [[String: Any]] ?? []
                members[1]["id"] = "8F1C2A4E-0C3B-4A57-9D6E-2B1F0C9E7A11"
                doc["members"] = members
            }),
            ("$.members[2]", try broken { doc in
                var members = doc["members"] as? [[String: Any]] ?? []
                members[2]["email"] = "SSLUG@ucsc.edu"
                doc["members"] = members
            }),
            ("$.workspaces[0].owner", try broken { doc in
                var list = workspaces(doc)
                list[0]["owner"] = "0e4a6f2c-1d3b-4c5e-8f70-9a1b2c3d4e5f"
                doc["workspaces"] = list
            }),
            ("$.workspaces[1].members[0]", try broken { doc in
                var list = workspaces(doc)
                list[1]["members"] = [list[1]["owner"] ?? ""]
                doc["workspaces"] = list
            }),
            ("$.workspaces[1].channels[0].messages[1].posted", try broken { doc in
                var list = workspaces(doc)
                var channels = list[1]["channels"] as? [[String: Any]] ?? []
                var messages = channels[0]["messages"] as? [[String: Any]] ?? []
                messages[1]["posted"] = "2023-02-30T12:18:48.000Z"
                channels[0]["messages"] = messages
                list[1]["channels"] = channels
                doc["workspaces"] = list
            }),
            ("$.workspaces[2].id", try broken { doc in
                var list = workspaces(doc)
                list[2]["id"] = list[0]["id"]
                doc["workspaces"] = list
            }),
            ("$.tokens[0].member", try broken { $0["tokens"] = [["token": "t", "member": "nobody"]] }),
        ]
        for (path, document) in cases {
            XCTAssertThrowsError(try api.loadState(SeedJSON(document)), path) { error in
                XCTAssertEqual((error as? SeedError)?.path, path, "\(error)")
            }
        }
        XCTAssertEqual(api.exportState(), before)
        XCTAssertEqual(try client.call("GET", "/workspace", token: token).status, 200)
    }

    func testEmailsPasswordsAndTokensCompareByteForByte() throws {
        // é composed (\u00e9) and decomposed (e + \u0301): canonically equivalent, other bytes; the
        // Kelvin sign (\u212a) likewise against K.
        let composed = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", decomposed = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
        let state = #"{"members":[{"id":"\#(composed)","name":"A","email":"jos\u00e9@x.com","password":"caf\u00e9"},"#
            + #"{"id":"\#(decomposed)","name":"B","email":"jose\u0301@x.com","password":"cafe\u0301"}],"#
            + #""workspaces":[],"tokens":[{"token":"KKKK","member":"\#(composed)"}]}"#
        XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: state).status, 200)
        let login = try client.call("POST", "/login", body: #"{"email":"JOSE\u0301@x.com","password":"cafe\u0301"}"#)
        XCTAssertEqual(try client.json(login)["id"] as? String, decomposed)
        XCTAssertEqual(try client.call("POST", "/login", body: #"{"email":"jos\u00e9@x.com","password":"cafe\u0301"}"#).status, 401)
        assertCSE118(try client.call("GET", "/workspace", token: "KKKK"), 200, "[]")
        XCTAssertEqual(try client.call("GET", "/workspace", token: "\u{212A}KKK").status, 403)
    }

    /// Workspaces and channels clients create count against the stored-text share of the memory
    /// budget like messages (issue 29 item 7): past it a create is the API's 503 and stores
    /// nothing; deleting gives the share back.
    func testWorkspacesAndChannelsPastTheStoredShareAreRefused() throws {
        var options = cse118Options()
        // 8 KiB: stored text may take 4 KiB, 256 bytes a row plus its name.
        options.storedText = StoredText(budget: MemoryBudget(limit: 8 << 10, limitPerAddress: 8 << 10))
        let budgeted = try XCTUnwrap(APICatalog.load(["cse118"], seed: TestServer.shippedSeed, options: options).first)
        let client = CSE118Client(server: try TestServer(responder: MockApp(apis: [budgeted])))
        let sammy = try client.login(CSE118Account.sammy)
        let answers = try (0..<20).map { try client.call("POST", "/workspace", token: sammy, body: #"{"name":"W\#($0)"}"#) }
        let stored = answers.filter { $0.status == 201 }.count
        XCTAssertEqual(stored, 15, "4 KiB holds 15 rows of 256 bytes and a short name")
        for refused in answers.dropFirst(stored) {
            assertCSE118(refused, 503, #"{"message":"Service Unavailable","status":503}"#)
        }
        let listed = try client.jsonArray(client.call("GET", "/workspace", token: sammy))
        XCTAssertEqual(listed.count, 3 + stored, "a refused create stored nothing")
        let created = try XCTUnwrap(listed.last?["id"] as? String)
        assertCSE118(try client.call("POST", "/workspace/\(created)/channel", token: sammy, body: #"{"name":"C"}"#), 503,
                     #"{"message":"Service Unavailable","status":503}"#)
        // A deleted workspace gives its share back, to a channel this time.
        XCTAssertEqual(try client.call("DELETE", "/workspace/\(created)", token: sammy).status, 200)
        let workspace = try XCTUnwrap(listed[listed.count - 2]["id"] as? String)
        XCTAssertEqual(try client.call("POST", "/workspace/\(workspace)/channel", token: sammy, body: #"{"name":"C"}"#).status, 201)
        XCTAssertEqual(try client.call("POST", "/workspace", token: sammy, body: #"{"name":"W"}"#).status, 503)
        // PUT /reset deletes what the caller created, and gives its share back too.
        assertCSE118(try client.call("PUT", "/reset", token: sammy), 200, "{}")
        XCTAssertEqual(try client.call("POST", "/workspace", token: sammy, body: #"{"name":"W"}"#).status, 201)
    }

    /// A server whose clock ticks a second per call, so each login mints a different token.
    private func tickingClient(issuedTokenLimit: Int) throws -> CSE118Client {
        let ticks = Ticks()
        var options = cse118Options()
        options.clock = { Date(timeIntervalSince1970: cse118Now.timeIntervalSince1970 + Double(ticks.next())) }
        options.issuedTokenLimit = issuedTokenLimit
        let ticking = try XCTUnwrap(APICatalog.load(["cse118"], seed: TestServer.shippedSeed, options: options).first)
        return CSE118Client(server: try TestServer(responder: MockApp(apis: [ticking])))
    }

    func testElevenLoginsAsOneMemberLeaveEveryTokenWorking() throws {
        // A classroom logs in as the banner's account (docs/apis/cse118.md#tokens).
        let client = try tickingClient(issuedTokenLimit: APIOptions().issuedTokenLimit)
        let tokens = try (0...10).map { _ in try client.login(CSE118Account.sammy) }
        XCTAssertEqual(Set(tokens).count, 11)
        for token in tokens { XCTAssertEqual(try client.call("GET", "/workspace", token: token).status, 200) }
    }

    func testPastTheLimitTheOldestIssuedTokenEndsButNoDocumentsToken() throws {
        let client = try tickingClient(issuedTokenLimit: 2)
        let loaded = try client.login(CSE118Account.riley)
        // Loaded back from a state document, the token is the document's: the limit never ends it.
        let document = try client.server.request("GET", "/_mock/state/cse118").text
        XCTAssertEqual(try client.server.request("PUT", "/_mock/state/cse118", body: document).status, 200)
        let issued = try (0...2).map { _ in try client.login(CSE118Account.sammy) }
        assertCSE118(try client.call("GET", "/workspace", token: issued[0]), 403, #"{"message":"Invalid access token","status":403}"#)
        for token in [loaded, issued[1], issued[2]] { XCTAssertEqual(try client.call("GET", "/workspace", token: token).status, 200) }
    }

    func testAdminResetRestoresEverythingAndDropsTokens() throws {
        let sammy = try client.login(CSE118Account.sammy)
        XCTAssertEqual(try client.call("POST", "/workspace", token: sammy, body: #"{"name":"Gone soon"}"#).status, 201)
        let reset = try server.request("POST", "/_mock/reset/cse118")
        XCTAssertEqual(reset.text, #"{"reset":["cse118"]}"#)
        assertCSE118(try client.call("GET", "/workspace", token: sammy), 403, #"{"message":"Invalid access token","status":403}"#)
        let again = try client.login(CSE118Account.sammy)
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace", token: again)).map { $0["id"] as? String },
                       ["Student Workspace", "Molly Workspace", "Anna Workspace"].map { seed.workspace($0, of: CSE118Account.sammy.0) })
        // The shipped seed exports back to the same content.
        let shipped = try JSONSerialization.jsonObject(with: Data(contentsOf: TestServer.shippedSeed.url.appendingPathComponent("cse118.json"))) as? NSDictionary
        var exported = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(api.exportState())) as? [String: Any])
        XCTAssertEqual((exported["tokens"] as? [Any])?.count, 1)
        exported["tokens"] = nil
        XCTAssertEqual(exported as NSDictionary, shipped)
    }
}

/// 0, 1, 2, … from any thread.
private final class Ticks: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count - 1
    }
}
