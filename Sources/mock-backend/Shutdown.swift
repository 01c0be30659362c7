import Foundation
import MockApp
import MockHTTP
import MockKit
import MockSupport

/// How the server stops (README.md#command-line): the first SIGINT or SIGTERM lets requests in
/// flight finish for at most `grace` seconds, a second one cuts them off at once (exit 128 + the
/// signal's number: 130 for Ctrl-C).
final class Shutdown: @unchecked Sendable {
    private let server: HTTPServer
    private let app: MockApp
    private let stateLog: StateLog?
    /// Removed at the stop, so `--healthcheck` finds no stale server.
    private let healthFile: String
    private let grace = 5.0
    private let lock = NSLock()
    private var cutShort = false

    init(server: HTTPServer, app: MockApp, stateLog: StateLog?, healthFile: String) {
        self.server = server
        self.app = app
        self.stateLog = stateLog
        self.healthFile = healthFile
    }

    func handleSignals() {
        TerminationSignals.handle(first: { [self] in drain($0) }, again: { [self] in stopAtOnce($0) })
    }

    private func drain(_ signal: Int32) {
        sayStopping(signal, grace: Int(grace), "mock-backend: stopping (finishing requests in flight, at most \(Int(grace)) s; "
                        + "\(Self.name(signal)) again stops at once)")
        server.stop(grace: grace)
        // After the last answer: the file left behind is one snapshot, plain JSON.
        stateLog?.close()
        finish(exitCode: 0, atOnce: false)
    }

    /// On the signal queue, while `drain` may still wait on the main queue. The state file needs
    /// nothing: every change was stored before it was answered.
    private func stopAtOnce(_ signal: Int32) {
        lock.lock()
        cutShort = true
        lock.unlock()
        sayStopping(signal, grace: 0, "mock-backend: \(Self.name(signal)) again: stopping at once")
        server.stop(grace: 0)
        finish(exitCode: 128 + signal, atOnce: true)
    }

    /// The last line and the exit. The lock is never released: whoever comes second waits here
    /// until the process ends, and a drain that was cut short leaves the exit to `stopAtOnce`.
    private func finish(exitCode: Int32, atOnce: Bool) {
        lock.lock()
        guard atOnce || !cutShort else {
            lock.unlock()
            return
        }
        HealthFile.remove(healthFile)
        let counts = server.requestCounts
        var event = ConsoleEvent("stop")
        event.bool("at_once", atOnce)
        event.string("uptime", app.uptime)
        event.int("answered", counts.answered)
        event.int("cut_off", counts.cutOff)
        event.int("exit_status", Int(exitCode))
        say("mock-backend stopped\(atOnce ? " at once" : "") after \(app.uptime): "
            + "\(counts.answered) \(counts.answered == 1 ? "request" : "requests") answered, \(counts.cutOff) cut off", or: event)
        exit(exitCode)
    }

    private func say(_ text: String, or event: ConsoleEvent) {
        if Console.standard.writesJSONLines { Console.standard.writeRecord(event.line) } else { Console.standard.write(text) }
    }

    private func sayStopping(_ signal: Int32, grace: Int, _ text: String) {
        var event = ConsoleEvent("stopping")
        event.string("signal", signal == SIGINT ? "SIGINT" : "SIGTERM")
        event.int("grace_s", grace)
        say(text, or: event)
    }

    private static func name(_ signal: Int32) -> String {
        signal == SIGINT ? "Ctrl-C" : "SIGTERM"
    }
}
