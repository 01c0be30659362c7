import Foundation

/// Serialized writes of whole lines to standard output, shared by the log and other console lines.
public final class Console: @unchecked Sendable {
    public static let standard = Console()
    private let lock = NSLock()

    public func write(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
