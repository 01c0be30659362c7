import Foundation

/// Serialized writes of whole lines to standard output, shared by the log and other console lines.
public final class Console: @unchecked Sendable {
    public static let standard = Console()
    private let lock = NSLock()

    /// Writes with write(2), not FileHandle: FileHandle traps when the reader is gone
    /// (`mock-backend | head`, a closed terminal), and a console nobody reads must not stop the
    /// server. A line that cannot be written is dropped.
    public func write(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
