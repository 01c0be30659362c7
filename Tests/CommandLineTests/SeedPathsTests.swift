import Foundation
import MockHTTP
import MockApp
import MockKit
import TestSupport
import XCTest

/// The rule of docs/admin.md#one-reader-for-seeds-and-states, on the running program with every
/// shipped seed: start-up, reset, export → `PUT /_mock/state`, a `--watch` reload and a `--state`
/// restart accept the same documents and end in the same state and the same answers.
final class SeedPathsTests: XCTestCase {
    private var folder: URL!
    private var seed: URL { folder.appendingPathComponent("Seed") }
    private var stateFile: URL { folder.appendingPathComponent("state.json") }
    private let names = APICatalog.names

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("seed-paths-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The whole shipped folder, side files (InternProducts' images) included.
        try FileManager.default.copyItem(at: TestServer.shippedSeed.url, to: seed)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func seedFile(_ api: String) -> URL { seed.appendingPathComponent("\(api).json") }

    private func export(_ api: String, port: Int) throws -> String {
        let response = try httpRequest(port: port, "GET", "/_mock/state/\(api)")
        XCTAssertEqual(response.status, 200, api)
        return response.text
    }

    /// Every API's state and its answer to its sample request, by API.
    private func snapshot(port: Int) throws -> [String: String] {
        var states: [String: String] = [:]
        for entry in APICatalog.entries {
            let sample = try XCTUnwrap(sampleRequests[entry.name], "\(entry.name) has no sample request")
            let answer = try httpRequest(port: port, sample.method, sample.target, body: Array(sample.body.utf8))
            states[entry.name] = try export(entry.name, port: port) + "\n\(answer.status) \(answer.text)"
        }
        return states
    }

    /// Waits until the console has said `reloaded <api>` for each API `count` times in all.
    private func waitForReloads(_ server: ChildProcess, count: Int) {
        for api in names {
            let line = "mock-backend: reloaded \(api) from "
            let deadline = Date().addingTimeInterval(30)
            while server.standardOutput.components(separatedBy: line).count - 1 < count, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            }
            XCTAssertEqual(server.standardOutput.components(separatedBy: line).count - 1, count,
                           "\(api) did not reload: \(server.standardOutput.suffix(2000))")
        }
    }

    /// Rewrites a file with new modification times, so the watcher sees a change even when the
    /// text is the same.
    private func write(_ text: String, to file: URL) throws {
        try FileManager.default.removeItem(at: file)
        try text.write(to: file, atomically: false, encoding: .utf8)
    }

    func testEveryShippedSeedSurvivesAWatchEditOfOneValue() throws {
        let edits: [String: (String, String)] = [
            "threads": (#""Bob""#, #""Bobby""#),
            "internproducts": (#""Coconut yoghurt cake""#, #""Coconut yogurt cake""#),
            "wsuv": (#""wonderland""#, #""wonderland2""#),
            "cse118": (#""Sammy Slug""#, #""Sammy Banana Slug""#),
            "otp": (#""Alex Rivera""#, #""Alex Q. Rivera""#),
        ]
        XCTAssertEqual(Set(edits.keys), Set(names), "one edit for every API")
        let (server, port) = try ChildProcess.startServer(["--seed", seed.path, "--watch"])
        for (api, edit) in edits {
            let text = try String(contentsOf: seedFile(api), encoding: .utf8)
            XCTAssertEqual(text.components(separatedBy: edit.0).count, 2, "\(api): the edited value occurs once")
            try write(text.replacingOccurrences(of: edit.0, with: edit.1), to: seedFile(api))
        }
        waitForReloads(server, count: 1)
        XCTAssertFalse(server.standardOutput.contains("keeps its running state"), server.standardOutput)
        for (api, edit) in edits {
            let state = try export(api, port: port)
            XCTAssertTrue(state.contains(edit.1), "\(api) serves the edited value")
            XCTAssertFalse(state.contains(edit.0), "\(api) no longer serves the old value")
        }
        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0)
    }

    func testStartUpResetStateLoadWatchAndRestartAgreeOnEveryShippedSeed() throws {
        var (server, port) = try ChildProcess.startServer(["--seed", seed.path, "--watch", "--state", stateFile.path])
        let started = try snapshot(port: port)

        XCTAssertEqual(try httpRequest(port: port, "POST", "/_mock/reset").status, 200)
        XCTAssertEqual(try snapshot(port: port), started, "reset")

        for api in names {
            let exported = try export(api, port: port)
            XCTAssertEqual(try httpRequest(port: port, "PUT", "/_mock/state/\(api)", body: Array(exported.utf8)).status, 200, api)
            // A seed file is a state document too.
            let seedText = try String(contentsOf: seedFile(api), encoding: .utf8)
            let loaded = try httpRequest(port: port, "PUT", "/_mock/state/\(api)", body: Array(seedText.utf8))
            XCTAssertEqual(loaded.status, 200, "\(api): PUT /_mock/state with the seed file: \(loaded.text)")
        }
        XCTAssertEqual(try snapshot(port: port), started, "export → PUT /_mock/state, and the seed file → PUT /_mock/state")

        for api in names { try write(String(contentsOf: seedFile(api), encoding: .utf8), to: seedFile(api)) }
        waitForReloads(server, count: 1)
        XCTAssertEqual(try snapshot(port: port), started, "--watch reloading the seed file")

        // An exported state is a seed file too.
        for api in names { try write(started[api]!.components(separatedBy: "\n").dropLast().joined(separator: "\n"), to: seedFile(api)) }
        waitForReloads(server, count: 2)
        XCTAssertFalse(server.standardOutput.contains("keeps its running state"), server.standardOutput)
        XCTAssertEqual(try snapshot(port: port), started, "--watch reloading an exported state as the seed file")

        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0)
        (server, port) = try ChildProcess.startServer(["--seed", seed.path, "--state", stateFile.path])
        XCTAssertEqual(try snapshot(port: port), started, "--state restart")
        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0)
    }
}
