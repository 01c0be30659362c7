import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// Every API's OpenAPI document, as served at `/_mock/openapi/{api}.json`: valid OpenAPI 3.1 per
/// `openapi-spec-validator`, and listing exactly the (method, path) pairs the API's route table serves.
final class OpenAPITests: XCTestCase {
    private var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer()
    }

    override func tearDown() {
        server = nil
    }

    /// The APIs the catalog builds today. A name of `APICatalog.names` whose API is not written yet
    /// (`APICatalog.load` leaves it out) is skipped; it is covered as soon as its API is merged.
    private func loadedAPIs() throws -> [any MockAPI] {
        let apis = try APICatalog.load(seed: TestServer.shippedSeed, options: APIOptions())
        XCTAssertFalse(apis.isEmpty)
        return APICatalog.names.compactMap { name in apis.first { $0.name == name } }
    }

    func testEveryDocumentPassesTheValidator() throws {
        guard try validatorIsInstalled() else { return }
        for api in try loadedAPIs() {
            let served = try server.request("GET", "/_mock/openapi/\(api.name).json")
            XCTAssertEqual(served.status, 200, api.name)
            XCTAssertEqual(served.headers["Content-Type"], "application/json; charset=utf-8", api.name)
            try assertValidOpenAPI(served.body, name: api.name)
            // OpenAPIBuilder writes `{}` for a schema fragment that is not valid JSON; the validator accepts it.
            XCTAssertEqual(emptyObjects(in: try JSONParser.parse(served.body)), [], api.name)
        }
    }

    func testEveryDocumentListsExactlyTheServedRoutes() throws {
        for api in try loadedAPIs() {
            let served = try server.request("GET", "/_mock/openapi/\(api.name).json")
            XCTAssertEqual(served.status, 200, api.name)
            let documented = try operations(inDocument: served.body, name: api.name)
            let routed = operations(servedBy: api.routes)
            XCTAssertFalse(routed.isEmpty, api.name)
            XCTAssertEqual(documented, routed,
                           "\(api.name): served but not documented \(routed.subtracting(documented).sorted()), "
                               + "documented but not served \(documented.subtracting(routed).sorted())")
        }
    }

    func testUnknownAPIIs404() throws {
        let response = try server.request("GET", "/_mock/openapi/nope.json")
        XCTAssertEqual(response.status, 404)
        XCTAssertEqual(response.text, #"{"error":"unknown_api","api":"nope"}"#)
    }

    // MARK: Helpers

    /// `GET /login` and so on, each path prefixed with the path of every server the document names
    /// (none, or a bare host, is the root). HEAD and OPTIONS are implied by the server, so left out.
    private func operations(inDocument bytes: [UInt8], name: String) throws -> Set<String> {
        let document = try XCTUnwrap(JSONParser.parse(bytes).objectValue, name)
        XCTAssertEqual(document["openapi"]?.stringValue, "3.1.0", name)
        let serverURLs = document["servers"]?.arrayValue?.compactMap { $0.objectValue?["url"]?.stringValue } ?? []
        let prefixes = serverURLs.isEmpty ? [""] : serverURLs.map { url in
            let path = url.hasPrefix("/") ? url : URLComponents(string: url)?.path ?? ""
            return path.hasSuffix("/") ? String(path.dropLast()) : path
        }
        let methods: Set = ["get", "post", "put", "patch", "delete", "trace"]
        var found = Set<String>()
        for (path, item) in try XCTUnwrap(document["paths"]?.objectValue, name).members {
            for key in item.objectValue?.keys ?? [] where methods.contains(key) {
                for prefix in prefixes { found.insert("\(key.uppercased()) \(prefix)\(path)") }
            }
        }
        return found
    }

    /// The same pairs from the route table; a route that takes any method is documented as GET and POST.
    private func operations(servedBy group: RouteGroup) -> Set<String> {
        let listed: [(Methods, String)] = [(.get, "GET"), (.post, "POST"), (.put, "PUT"), (.patch, "PATCH"), (.delete, "DELETE")]
        var found = Set<String>()
        for route in group.routes {
            let names = route.methods == .any ? ["GET", "POST"] : listed.filter { route.methods.contains($0.0) }.map(\.1)
            for method in names { found.insert("\(method) \(route.pattern)") }
        }
        return found
    }

    /// The JSON paths of every `{}` in the document.
    private func emptyObjects(in value: JSONValue, at path: String = "$") -> [String] {
        switch value {
        case let .object(object):
            if object.members.isEmpty { return [path] }
            return object.members.flatMap { emptyObjects(in: $0.value, at: "\(path).\($0.key)") }
        case let .array(items):
            return items.enumerated().flatMap { emptyObjects(in: $0.element, at: "\(path)[\($0.offset)]") }
        default:
            return []
        }
    }

    /// The Python of the package's .venv (scripts/install-test-tools.sh makes it), else python3.
    private static let python: String = {
        let venv = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".venv/bin/python3").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3"
    }()

    /// On Linux (CI, Docker) a missing Python or validator fails the test, pointing at the script that
    /// installs it; on a student's Mac, where `swift test` alone must pass, the test is skipped instead.
    private func validatorIsInstalled() throws -> Bool {
        let probe = run([Self.python, "-c", "import openapi_spec_validator"])
        guard probe.status == 0 else {
            let reason = probe.output.split(separator: "\n").last ?? ""
            let message = "openapi-spec-validator is not available (\(reason)); "
                + "install it with `bash scripts/install-test-tools.sh` (needs python3)"
            #if os(Linux)
            XCTFail(message)
            return false
            #else
            throw XCTSkip(message)
            #endif
        }
        return true
    }

    private func assertValidOpenAPI(_ document: [UInt8], name: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(name)-\(UUID().uuidString).json")
        try Data(document).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = run([Self.python, "-m", "openapi_spec_validator", file.path])
        // The validator quotes the whole document in its errors; the start says what is wrong.
        let report = "\(name): \(result.output.prefix(1500))"
        XCTAssertEqual(result.status, 0, report)
        XCTAssertTrue(result.output.contains("OK"), report)
    }

    private func run(_ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch { return (-1, "\(error)") }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
