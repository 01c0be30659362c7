import Foundation
import XCTest

/// Every program a test starts (`ChildProcess`) is ended when that test ends, passed or failed,
/// and whatever is left when the test run ends. XCTest on Linux exits without releasing test
/// cases, so a `deinit` alone never runs there: servers a test left running, or lost to a failed
/// assertion before its own `terminate()`, outlived the run (adopted by PID 1).
final class ChildProcessRegistry: NSObject, XCTestObservation, @unchecked Sendable {
    static let shared: ChildProcessRegistry = {
        let registry = ChildProcessRegistry()
        XCTestObservationCenter.shared.addTestObserver(registry)
        atexit { ChildProcessRegistry.shared.endAll() }
        return registry
    }()

    private let lock = NSLock()
    private var running: [Process] = []

    /// Called once the process runs; must be called on the thread that runs tests the first time
    /// (XCTest wants its observers added there), which every test that starts a program does.
    func started(_ process: Process) {
        lock.lock()
        running.removeAll { !$0.isRunning }
        running.append(process)
        lock.unlock()
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        endAll()
    }

    /// SIGTERM, as `docker stop` and Ctrl-C do (a server drains and exits 0), then SIGKILL for
    /// whatever has not ended after 5 s: a wrapper like unshare that waits for its child and
    /// ignores SIGTERM, or a program stopped on purpose (SIGSTOP).
    func endAll() {
        lock.lock()
        let processes = running
        running.removeAll()
        lock.unlock()
        let alive = processes.filter(\.isRunning)
        for process in alive { kill(process.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(5)
        while alive.contains(where: \.isRunning) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        for process in alive where process.isRunning {
            kill(process.processIdentifier, SIGCONT)
            kill(process.processIdentifier, SIGKILL)
        }
    }
}
