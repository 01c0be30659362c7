import Foundation

/// Whole lines to standard output, shared by the log and other console lines.
///
/// Callers (the event loops among them) only queue a line; one writer thread does the write(2).
/// A console nobody reads, `mock-backend | less` after its first screen, a terminal held with
/// Ctrl-S or a stalled `docker logs`, then blocks that thread alone, never the server. While the
/// queue is full, lines are dropped and counted, and the next line that fits says how many. A
/// reader that is gone (EPIPE) costs the lines, nothing else. Lines queued before `exit` are
/// written, waiting at most `exitWait` for a stuck reader.
public final class Console: @unchecked Sendable {
    public static let standard: Console = {
        let console = Console(descriptor: STDOUT_FILENO, capacity: 1 << 20)
        atexit { Console.standard.flush(waiting: Console.exitWait) }
        return console
    }()

    static let exitWait = 2.0

    private let descriptor: Int32
    private let capacity: Int
    private let condition = NSCondition()
    private var queued: [UInt8] = []
    private var dropped = 0
    private var writing = false
    private var writerStarted = false

    /// `capacity`: the bytes of lines that may wait for the writer.
    public init(descriptor: Int32, capacity: Int) {
        self.descriptor = descriptor
        self.capacity = capacity
    }

    public func write(_ line: String) {
        condition.lock()
        defer { condition.unlock() }
        let size = line.utf8.count + 1
        guard queued.count + size <= capacity else {
            dropped += 1
            return
        }
        if dropped > 0 {
            let notice = "mock-backend: \(dropped) console \(dropped == 1 ? "line was" : "lines were") dropped: "
                + "standard output was not being read"
            queued.append(contentsOf: notice.utf8)
            queued.append(UInt8(ascii: "\n"))
            dropped = 0
        }
        queued.append(contentsOf: line.utf8)
        queued.append(UInt8(ascii: "\n"))
        if !writerStarted {
            writerStarted = true
            let writer = Thread { [self] in writeForever() }
            writer.name = "console"
            writer.start()
        }
        condition.signal()
    }

    /// Waits until every queued line was written, or `seconds` passed.
    public func flush(waiting seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !queued.isEmpty || writing {
            guard condition.wait(until: deadline) else { return }
        }
    }

    private func writeForever() {
        condition.lock()
        while true {
            while queued.isEmpty { condition.wait() }
            let batch = queued
            queued.removeAll(keepingCapacity: true)
            writing = true
            condition.unlock()
            writeAll(batch)
            condition.lock()
            writing = false
            condition.broadcast()
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = writeDescriptor(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else if written < 0 && errno == EAGAIN {
                    // Standard output inherited in non-blocking mode: wait until it takes more.
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                } else {
                    return
                }
            }
        }
    }
}

/// write(2), named apart from `Console.write`.
private func writeDescriptor(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
