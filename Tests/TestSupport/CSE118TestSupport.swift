import Foundation
import MockHTTP
import MockApp
import MockKit
import XCTest

/// The shipped seed's ids, read from `Seed/cse118.json`, so tests can spell exact bodies.
public struct CSE118Seed {
    public let document: [String: Any]

    public init() throws {
        let url = TestServer.shippedSeed.url.appendingPathComponent("cse118.json")
        document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    private var members: [[String: Any]] { document["members"] as? [[String: Any]] ?? [] }
    private var workspaces: [[String: Any]] { document["workspaces"] as? [[String: Any]] ?? [] }

    /// The member id of an account, by email.
    public func id(_ email: String) -> String {
        members.first { $0["email"] as? String == email }?["id"] as? String ?? "missing \(email)"
    }

    /// The id of a student's copy of a fixture workspace.
    public func workspace(_ name: String, of studentEmail: String) -> String {
        workspaceObject(name, of: studentEmail)["id"] as? String ?? "missing \(name)"
    }

    /// The id of a channel in a student's copy of a fixture workspace.
    public func channel(_ name: String, in workspaceName: String, of studentEmail: String) -> String {
        let channels = workspaceObject(workspaceName, of: studentEmail)["channels"] as? [[String: Any]] ?? []
        return channels.first { $0["name"] as? String == name }?["id"] as? String ?? "missing \(name)"
    }

    /// The message ids of a channel, in seed order.
    public func messages(_ channelName: String, in workspaceName: String, of studentEmail: String) -> [String] {
        let channels = workspaceObject(workspaceName, of: studentEmail)["channels"] as? [[String: Any]] ?? []
        let channel = channels.first { $0["name"] as? String == channelName }
        return (channel?["messages"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    private func workspaceObject(_ name: String, of studentEmail: String) -> [String: Any] {
        let student = id(studentEmail)
        return workspaces.first { $0["name"] as? String == name && $0["fixtureOf"] as? String == student } ?? [:]
    }
}

/// Accounts of the seed (docs/apis/cse118.md#accounts).
public enum CSE118Account {
    public static let sammy = ("sslug@ucsc.edu", "1234567")
    public static let riley = ("rredwood@ucsc.edu", "2345678")
    public static let casey = ("ccoast@ucsc.edu", "3456789")
    public static let molly = ("molly@cse118.com", "molly")
    public static let anna = ("anna@cse118.com", "anna")
    public static let will = ("will@cse118.com", "will")
    public static let harrison = ("harrison@cse118.com", "harrison")
}

/// Talks to the cse118 API of a test server the way the course's clients do: JSON bodies,
/// `Authorization: Bearer …`, one connection per request.
public struct CSE118Client {
    public let server: TestServer
    public var base = "/api/v2"

    public init(server: TestServer, base: String = "/api/v2") {
        self.server = server
        self.base = base
    }

    /// One request; `token` adds the bearer header, `body` is sent as is (no Content-Type unless given).
    public func call(_ method: String, _ path: String, token: String? = nil, body: String? = nil,
              headers: [(String, String)] = []) throws -> ClientResponse {
        var all = headers
        if let token { all.append(("Authorization", "Bearer \(token)")) }
        return try server.request(method, base + path, headers: all, body: Array((body ?? "").utf8))
    }

    /// Logs in and returns the access token.
    public func login(_ account: (String, String), file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let response = try call("POST", "/login", body: #"{"email":"\#(account.0)","password":"\#(account.1)"}"#)
        XCTAssertEqual(response.status, 200, response.text, file: file, line: line)
        return try XCTUnwrap(json(response)["accessToken"] as? String, file: file, line: line)
    }

    public func json(_ response: ClientResponse) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], response.text)
    }

    public func jsonArray(_ response: ClientResponse) throws -> [[String: Any]] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]], response.text)
    }
}

/// Asserts status, exact body and the JSON content type of a cse118 answer.
public func assertCSE118(_ response: ClientResponse, _ status: Int, _ body: String,
                  file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(response.status, status, file: file, line: line)
    XCTAssertEqual(response.text, body, file: file, line: line)
    XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8", file: file, line: line)
    XCTAssertEqual(response.headers["Access-Control-Allow-Origin"], "*", file: file, line: line)
}

/// The exact validation envelope with one problem.
public func cse118Validation(_ path: String, _ message: String, _ kind: String) -> String {
    #"{"message":"request\#(path) \#(message)","errors":[{"path":"\#(path)","message":"\#(message)","errorCode":"\#(kind).openapi.validation"}],"status":400}"#
}

/// The error codes of a validation envelope, as `path kind` lines in answer order.
public func cse118ErrorCodes(_ response: ClientResponse) -> [String] {
    guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
          let errors = object["errors"] as? [[String: Any]] else { return ["not a validation envelope: \(response.text)"] }
    return errors.map { "\($0["path"] ?? "") \($0["errorCode"] ?? "")" }
}

/// A fixed clock: 2024-02-03T18:04:05.125Z.
public let cse118Now = Date(timeIntervalSince1970: 1_706_983_445.125)

public func cse118Options() -> APIOptions {
    var options = APIOptions()
    options.clock = { cse118Now }
    return options
}
