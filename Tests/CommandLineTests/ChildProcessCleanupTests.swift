import Foundation
import TestSupport
import XCTest

/// A program a test starts ends with the test, even when the test never stops it: XCTest on Linux
/// exits without releasing test cases, so such servers used to outlive the run. XCTest runs these
/// two in name order; the second looks at what the first left.
final class ChildProcessCleanupTests: XCTestCase {
    nonisolated(unsafe) private static var leftRunning: ChildProcess?

    func test1StartsAServerAndEndsWithoutStoppingIt() throws {
        let (server, _) = try ChildProcess.startServer(["--only", "otp", "--quiet"])
        Self.leftRunning = server
        XCTAssertTrue(server.process.isRunning)
    }

    func test2TheServerOfTheTestBeforeHasEnded() throws {
        let server = try XCTUnwrap(Self.leftRunning, "run with test1StartsAServerAndEndsWithoutStoppingIt")
        XCTAssertNotNil(server.waitForExit(timeout: 1), "the server outlived the test that started it")
        XCTAssertTrue(server.standardOutput.contains("mock-backend stopped after"), "stopped with SIGTERM, as docker stop does")
    }
}
