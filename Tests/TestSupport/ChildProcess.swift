import Foundation

/// The built `mock-backend` program run as a child process, its output collected as it comes.
public final class ChildProcess: @unchecked Sendable {
    public let process = Process()
    private let outputPipe = Pipe(), errorPipe = Pipe()
    private let lock = NSLock()
    private var stdoutText = ""
    private var stderrText = ""
    private let finished = DispatchSemaphore(value: 0)
    /// Signalled once per pipe at its end of stream, after its last bytes were appended.
    private let pipeEnded = DispatchSemaphore(value: 0)
    /// What the standard output reader is to do next time it wakes (guarded by `lock`).
    private var outputReading = OutputReading.reading
    /// Signalled once the standard output reader has stopped as `outputReading` asked.
    private let outputStopped = DispatchSemaphore(value: 0)

    private enum OutputReading { case reading, stopped, closed }

    /// The package this file belongs to.
    private static let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The `mock-backend` program the build put beside the tests: the first of `searchFolders` that has it.
    public static let executable: URL = program(in: searchFolders)

    /// Where the build may have put the program, in order:
    /// - macOS: the folder of the loaded test bundle (the running executable is Xcode's `xctest`);
    /// - the folder of the running executable (on Linux the test bundle is the executable);
    /// - the package's `.build/debug`.
    /// `Bundle.allBundles` only on macOS: Swift 6.0's Linux Foundation crashes in it.
    static var searchFolders: [URL] {
        var folders: [URL] = []
        #if os(macOS) // Foundation only (no Darwin call): the Xcode runner is macOS's
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        #endif
        if let running = CommandLine.arguments.first, !running.isEmpty {
            folders.append(URL(fileURLWithPath: running).deletingLastPathComponent())
        }
        folders.append(packageFolder.appendingPathComponent(".build/debug"))
        return folders
    }

    /// `mock-backend` in the first folder where it is an executable file; in the first folder when
    /// none has it (so that the message about it names a place it was looked for).
    public static func program(in folders: [URL]) -> URL {
        let candidates = folders.map { $0.appendingPathComponent("mock-backend") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// Why `executable` cannot be run as the program under test, or nil.
    static let executableProblem: String? = problem(running: executable, sources: packageFolder.appendingPathComponent("Sources"))

    /// Why `program` cannot be run as the program built from `sources`, or nil: it is missing, or
    /// older than a source file (Xcode's test action builds the tests but not the `mock-backend` product).
    public static func problem(running program: URL, sources: URL) -> String? {
        let build = "build it (`swift build`, or the mock-backend scheme in Xcode), then test again"
        guard FileManager.default.isExecutableFile(atPath: program.path) else {
            return "the mock-backend program is not built (looked for \(program.path)): \(build)"
        }
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        func modified(_ url: URL) -> Date {
            (try? url.resourceValues(forKeys: Set(keys)).contentModificationDate) ?? .distantPast
        }
        let built = modified(program)
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: keys)
        while let source = files?.nextObject() as? URL {
            if source.pathExtension == "swift", modified(source) > built {
                return "\(program.path) is older than \(source.path): \(build)"
            }
        }
        return nil
    }

    public struct ProgramNotBuilt: Error, CustomStringConvertible {
        public var description: String
    }

    /// Where the servers these tests start leave their health file (docs/admin.md#health-check).
    public static let healthFile = FileManager.default.temporaryDirectory
        .appendingPathComponent("mock-backend-tests-\(ProcessInfo.processInfo.processIdentifier).health").path

    /// What runs the program as an ordinary user: nothing when the tests are not root; as root,
    /// setpriv to uid 10001 (the image's user); nil as root without setpriv.
    public static var ordinaryUserWrapper: [String]? {
        guard getuid() == 0 else { return [] }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return nil }
        return ["/usr/bin/setpriv", "--reuid=10001", "--regid=10001", "--clear-groups"]
    }

    /// `wrapper` runs the program through another one, e.g. `["/usr/bin/setpriv", "--reuid=10001", …]`.
    public init(_ arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
                wrapper: [String] = []) throws {
        if let problem = Self.executableProblem { throw ProgramNotBuilt(description: problem) }
        if let launcher = wrapper.first {
            process.executableURL = URL(fileURLWithPath: launcher)
            process.arguments = wrapper.dropFirst() + [Self.executable.path] + arguments
        } else {
            process.executableURL = Self.executable
            process.arguments = arguments
        }
        var merged = ProcessInfo.processInfo.environment
        // The poller choice is kept, so a suite run on the poll backend runs its children on it too.
        for key in merged.keys where (key.hasPrefix("MOCK_") && key != "MOCK_POLLER") || key == "PORT" { merged[key] = nil }
        // The banner as on a developer's machine, even where the tests run in a container (a test
        // asks for MOCK_IN_CONTAINER=1 to see the other one); and a health file of the test run's
        // own, so that `--healthcheck` without flags never meets a server someone else started.
        merged["MOCK_IN_CONTAINER"] = "0"
        merged["MOCK_HEALTH_FILE"] = Self.healthFile
        merged.merge(environment) { $1 }
        process.environment = merged
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        process.terminationHandler = { [finished] _ in finished.signal() }
        try process.run()
        ChildProcessRegistry.shared.started(process)
        // One thread per pipe reads until the end of the stream. (FileHandle's readabilityHandler
        // sometimes never reports the end on Linux, which left waitForExit waiting its whole timeout.)
        // The threads get the descriptor, a plain number: whether Pipe is Sendable differs by SDK.
        for (fd, toError) in [(outputPipe.fileHandleForReading.fileDescriptor, false),
                              (errorPipe.fileHandleForReading.fileDescriptor, true)] {
            Thread { [weak self] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while self?.read(fd, toError: toError, into: &buffer) == true {}
            }.start()
        }
    }

    /// Closes the reading end of standard output, as `mock-backend | head` does once head has
    /// its lines: the program's later console writes fail with EPIPE.
    public func closeStandardOutput() {
        stopReadingStandardOutput(then: .closed)
    }

    /// Stops reading standard output, as a pager does after its first screen: once the pipe is
    /// full, the program's console writes would block.
    public func stopReadingStandardOutput() {
        stopReadingStandardOutput(then: .stopped)
    }

    /// Returns once the reader has stopped, so every console write after it meets the new state.
    private func stopReadingStandardOutput(then next: OutputReading) {
        lock.lock()
        outputReading = next
        lock.unlock()
        outputStopped.wait()
        outputStopped.signal()
    }

    /// Reads what the pipe has (waiting at most 20 ms, so that a stop is seen); false once it
    /// ended, or, for standard output, once told to stop.
    private func read(_ fd: Int32, toError: Bool, into buffer: inout [UInt8]) -> Bool {
        if !toError {
            lock.lock()
            let next = outputReading
            lock.unlock()
            if next != .reading {
                if next == .closed { try? outputPipe.fileHandleForReading.close() }
                return ended(toError: toError)
            }
        }
        var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&watched, 1, 20)
        if ready == 0 || (ready < 0 && errno == EINTR) { return true }
        let count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { return true }
        guard count > 0 else { return ended(toError: toError) }
        append(Data(buffer[..<count]), toError: toError)
        return true
    }

    private func ended(toError: Bool) -> Bool {
        if !toError { outputStopped.signal() }
        pipeEnded.signal()
        return false
    }

    private func append(_ data: Data, toError: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if toError { stderrText += String(decoding: data, as: UTF8.self) } else { stdoutText += String(decoding: data, as: UTF8.self) }
    }

    public var standardOutput: String {
        lock.lock()
        defer { lock.unlock() }
        return stdoutText
    }

    public var standardError: String {
        lock.lock()
        defer { lock.unlock() }
        return stderrText
    }

    /// Waits for the exit (at most `timeout` seconds) and returns the status, or nil if still running.
    public func waitForExit(timeout: Double = 20) -> Int32? {
        guard finished.wait(timeout: .now() + timeout) == .success else { return nil }
        finished.signal()
        // The output is whole once both pipes have ended (at once after the exit, unless the
        // machine is busy).
        for _ in 0..<2 { _ = pipeEnded.wait(timeout: .now() + timeout) }
        pipeEnded.signal()
        pipeEnded.signal()
        return process.terminationStatus
    }

    /// Waits until standard output contains `text`; false after `timeout` seconds.
    public func waitForOutput(_ text: String, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if standardOutput.contains(text) { return true }
            if !process.isRunning { return standardOutput.contains(text) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// A server on a free loopback port, with the port read from its banner; nil (and the
    /// output in `failure`) when it never said it listens.
    public static func startServer(_ extra: [String] = [], environment: [String: String] = [:], directory: URL? = nil,
                                   wrapper: [String] = []) throws -> (ChildProcess, Int) {
        let child = try ChildProcess(["--host", "127.0.0.1", "--port", "0"] + extra, environment: environment,
                                     directory: directory, wrapper: wrapper)
        guard child.waitForOutput("Ctrl-C stops."), let marker = child.standardOutput.range(of: "listening on 127.0.0.1:"),
              let port = Int(child.standardOutput[marker.upperBound...].prefix { $0.isNumber }) else {
            throw StartFailure(output: child.standardOutput + child.standardError)
        }
        return (child, port)
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public var output: String
        public var description: String { "the server did not start: \(output)" }
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
