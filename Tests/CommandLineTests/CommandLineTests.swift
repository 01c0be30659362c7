import Foundation
import MockHTTP
import TestSupport
import XCTest

/// The `mock-backend` program as a student, a TA or Docker runs it.
final class CommandLineTests: XCTestCase {
    private var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32?, ChildProcess) {
        let child = try ChildProcess(arguments, environment: environment)
        return (child.waitForExit(), child)
    }

    /// Starts a server on a free loopback port and returns it with its port, read from the banner.
    private func startServer(_ extra: [String] = [], environment: [String: String] = [:],
                             directory: URL? = nil) throws -> (ChildProcess, Int) {
        let child = try ChildProcess(["--host", "127.0.0.1", "--port", "0"] + extra, environment: environment,
                                     directory: directory ?? repository)
        XCTAssertTrue(child.waitForOutput("Ctrl-C stops."), child.standardOutput + child.standardError)
        let banner = child.standardOutput
        let marker = try XCTUnwrap(banner.range(of: "listening on 127.0.0.1:"))
        let port = try XCTUnwrap(Int(banner[marker.upperBound...].prefix { $0.isNumber }))
        return (child, port)
    }

    func testHelpAndVersion() throws {
        let (helpStatus, help) = try run(["--help"])
        XCTAssertEqual(helpStatus, 0)
        XCTAssertTrue(help.standardOutput.hasPrefix("Usage: mock-backend [options]"))
        XCTAssertTrue(help.standardOutput.contains("--otp-code 123456"))
        let (versionStatus, version) = try run(["--version"])
        XCTAssertEqual(versionStatus, 0)
        XCTAssertEqual(version.standardOutput, "mock-backend 0.1.0\n")
    }

    func testBadFlagsExitTwoWithTheUsage() throws {
        for (arguments, complaint) in [
            (["--bogus"], "unknown argument --bogus"),
            (["--port", "eighty"], "--port must be a whole number"),
            (["--port"], "--port needs a value"),
            (["--latency", "5-1"], "--latency takes milliseconds"),
            (["--otp-ttl", "0"], "--otp-ttl must be a whole number from 1"),
            (["--otp-code", "12345"], "--otp-code must be six digits"),
            (["--wsuv-tz", "Mars/Olympus_Mons"], "--wsuv-tz: unknown time zone Mars/Olympus_Mons"),
            (["--only", "threads,nope"], "--only: unknown API nope"),
            (["--log-format", "xml"], "--log-format must be text or json"),
        ] {
            let (status, child) = try run(arguments)
            XCTAssertEqual(status, 2, "\(arguments)")
            XCTAssertTrue(child.standardError.hasPrefix("mock-backend: \(complaint)"), child.standardError)
            XCTAssertTrue(child.standardError.contains("Usage: mock-backend"), "\(arguments)")
        }
        let (status, child) = try run([], environment: ["MOCK_OTP_TTL": "abc"])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(child.standardError.contains("--otp-ttl must be"))
    }

    func testBusyPortSaysSoInOneLineAndExitsOne() throws {
        let (first, port) = try startServer()
        let (status, second) = try run(["--host", "127.0.0.1", "--port", String(port)])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(second.standardError,
                       "mock-backend: port \(port) is already in use on 127.0.0.1; stop the other server or choose another port with --port\n")
        first.process.terminate()
        XCTAssertEqual(first.waitForExit(), 0)
    }

    func testBadSeedNamesTheFileAndThePlace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = #"{"users":[{"user_id":1,"email":7,"password":"p","fname":"A","lname":"B"}],"threads":[],"messages":[]}"#
        try Data(broken.utf8).write(to: folder.appendingPathComponent("threads.json"))
        let (status, child) = try run(["--seed", folder.path, "--only", "threads"])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(child.standardError,
                       "mock-backend: bad seed: \(folder.path)/threads.json: $.users[0].email: expected a string\n")
        try Data("{\"users\":[".utf8).write(to: folder.appendingPathComponent("threads.json"))
        let (again, invalid) = try run(["--seed", folder.path, "--only", "threads"])
        XCTAssertEqual(again, 1)
        XCTAssertTrue(invalid.standardError.contains("threads.json: $: not valid JSON"), invalid.standardError)
    }

    func testServesTheShippedSeedLogsRequestsAndStopsCleanly() throws {
        // Started from a sub-folder: the seed is found in a parent of the working directory.
        let (child, port) = try startServer(directory: repository.appendingPathComponent("Sources"))
        XCTAssertTrue(child.standardOutput.contains("mock-backend 0.1.0"))
        XCTAssertTrue(child.standardOutput.contains("a@a.com / test123"))
        XCTAssertTrue(child.standardOutput.contains("seed:              \(repository.path)/Seed"))

        let client = try BlockingClient(port: port)
        client.send("GET /api/nothing-here HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 404)
        XCTAssertTrue(child.waitForOutput(" 127.0.0.1 GET /api/nothing-here 404 "), child.standardOutput)

        let (healthy, probe) = try run(["--healthcheck", "http://127.0.0.1:\(port)"])
        XCTAssertEqual(healthy, 0, probe.standardOutput)
        XCTAssertTrue(probe.standardOutput.hasPrefix("healthy: {\"status\":\"ok\""))

        child.process.interrupt()
        XCTAssertEqual(child.waitForExit(), 0)
        XCTAssertTrue(child.standardOutput.contains("mock-backend: stopping"))

        let (unhealthy, _) = try run(["--healthcheck", "http://127.0.0.1:\(port)"])
        XCTAssertEqual(unhealthy, 1)
    }

    func testQuietAndJSONLog() throws {
        let (quiet, quietPort) = try startServer(["--quiet"])
        let client = try BlockingClient(port: quietPort)
        client.send("GET /nothing HTTP/1.1\r\n\r\n")
        _ = try client.readResponse()
        quiet.process.terminate()
        XCTAssertEqual(quiet.waitForExit(), 0)
        XCTAssertFalse(quiet.standardOutput.contains("/nothing"))

        let (json, jsonPort) = try startServer([], environment: ["MOCK_LOG_FORMAT": "json"])
        let second = try BlockingClient(port: jsonPort)
        second.send("GET /nothing HTTP/1.1\r\n\r\n")
        _ = try second.readResponse()
        XCTAssertTrue(json.waitForOutput(#""method":"GET","path":"/nothing","status":404,"#), json.standardOutput)
        json.process.terminate()
        XCTAssertEqual(json.waitForExit(), 0)
    }
}
