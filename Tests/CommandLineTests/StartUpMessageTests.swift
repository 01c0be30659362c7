import Foundation
import MockHTTP
import MockApp
import TestSupport
import XCTest

/// A start that cannot go on says in one line what is wrong and what to do, and exits 1.
final class StartUpMessageTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("start-up-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func run(_ arguments: [String]) throws -> (Int32?, ChildProcess) {
        let child = try ChildProcess(arguments)
        return (child.waitForExit(), child)
    }

    /// Port 80 as an ordinary user (as root, the server runs as uid 10001 through setpriv).
    func testAPrivilegedPortIsNamedWithAPortToUseInstead() throws {
        guard let wrapper = ChildProcess.ordinaryUserWrapper else {
            throw XCTSkip("running as root without setpriv: cannot run the server as an ordinary user")
        }
        let child = try ChildProcess(["--host", "127.0.0.1", "--port", "80", "--only", "otp",
                                      "--seed", TestServer.shippedSeed.url.path], wrapper: wrapper)
        if child.waitForOutput("Ctrl-C stops.") {
            child.process.terminate()
            throw XCTSkip("this system lets any user listen on port 80 (net.ipv4.ip_unprivileged_port_start, or macOS)")
        }
        XCTAssertEqual(child.waitForExit(), 1)
        XCTAssertEqual(child.standardError, "mock-backend: port 80 needs privileges this user does not have "
                       + "(ports below 1024 do); choose another with --port, e.g. --port 8080\n")
        let fromEnvironment = try ChildProcess(["--host", "127.0.0.1", "--only", "otp", "--seed", TestServer.shippedSeed.url.path],
                                               environment: ["PORT": "443"], wrapper: wrapper)
        XCTAssertEqual(fromEnvironment.waitForExit(), 1)
        XCTAssertEqual(fromEnvironment.standardError, "mock-backend: port 443 needs privileges this user does not have "
                       + "(ports below 1024 do); choose another with PORT, e.g. PORT=8443\n")
    }

    /// An address from a documentation range (RFC 5737), which no machine should have.
    func testAnAddressThisMachineLacksIsNamedWithThoseItHas() throws {
        let foreign = "198.51.100.7"
        guard !HTTPServer.lanAddresses.contains(foreign) else { throw XCTSkip("this machine has \(foreign)") }
        let (status, child) = try run(["--host", foreign, "--port", "18801", "--only", "otp"])
        XCTAssertEqual(status, 1)
        let offered = (["127.0.0.1"] + HTTPServer.lanAddresses).joined(separator: ", ")
        XCTAssertEqual(child.standardError, "mock-backend: this machine has no address \(foreign); "
                       + "use --host 0.0.0.0 (every interface) or one of: \(offered)\n")
        let fromEnvironment = try ChildProcess(["--port", "18801", "--only", "otp"], environment: ["MOCK_HOST": foreign])
        XCTAssertEqual(fromEnvironment.waitForExit(), 1)
        XCTAssertEqual(fromEnvironment.standardError, "mock-backend: this machine has no address \(foreign); "
                       + "use MOCK_HOST=0.0.0.0 (every interface) or one of: \(offered)\n")
    }

    /// Every API's seed file, broken on its second line: the place is file:line:column.
    func testASeedSyntaxErrorIsPlacedInEveryAPIsFile() throws {
        for name in APICatalog.names {
            let file = folder.appendingPathComponent("\(name).json")
            try Data("{\"users\": [\n  {\"id\": 1,, \"x\": 2}]}\n".utf8).write(to: file)
            let (status, child) = try run(["--seed", folder.path, "--only", name])
            XCTAssertEqual(status, 1, name)
            XCTAssertTrue(child.standardError.hasPrefix("mock-backend: bad seed: \(file.path):2:12: not valid JSON: "),
                          child.standardError)
            XCTAssertEqual(child.standardError.filter { $0 == "\n" }.count, 1, child.standardError)
            try FileManager.default.removeItem(at: file)
        }
    }

    func testAStateFileSyntaxErrorIsPlaced() throws {
        let file = folder.appendingPathComponent("state.json")
        try Data("{\"threads\": {\"users\": [\n  1,,\n".utf8).write(to: file)
        let (status, child) = try run(["--state", file.path, "--only", "threads", "--port", "0"])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(child.standardError, "mock-backend: bad state file: \(file.path):2:5: $: not a state file (expected a value); "
                       + "move it away or give another --state FILE\n")
    }

    func testAStubSyntaxErrorIsPlaced() throws {
        let file = folder.appendingPathComponent("broken.json")
        try Data("{\"request\": {\"method\": \"GET\", \"path\": \"/x\"},\n \"response\": {\"status\": 200,}}\n".utf8).write(to: file)
        let (status, child) = try run(["--stubs", folder.path, "--only", "otp"])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(child.standardError.hasPrefix("mock-backend: bad stub: \(file.path):2:29: not valid JSON: "),
                      child.standardError)
    }
}
