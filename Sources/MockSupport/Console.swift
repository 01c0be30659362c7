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
    /// `--log-format json`: every line is one JSON object, a plain message included.
    private var jsonLines = false

    /// `capacity`: the bytes of lines that may wait for the writer.
    public init(descriptor: Int32, capacity: Int) {
        self.descriptor = descriptor
        self.capacity = capacity
    }

    /// From now on every line is one JSON object (`--log-format json`): `write` wraps a message as
    /// `{"at":"…","event":"message","message":"…"}`, and `writeRecord` lines are objects already.
    public func useJSONLines() {
        condition.locked { jsonLines = true }
    }

    public var writesJSONLines: Bool { condition.locked { jsonLines } }

    /// A message for whoever reads the console: as is, or as a JSON `message` event.
    public func write(_ line: String) {
        condition.locked { enqueue(jsonLines ? Self.message(line) : line) }
    }

    /// A line that is whole as given: a request log line, or a JSON event (`ConsoleEvent`).
    public func writeRecord(_ line: String) {
        condition.locked { enqueue(line) }
    }

    /// `{"at":"2026-11-21T23:59:01.123Z","event":"message","message":"…"}`.
    static func message(_ text: String) -> String {
        var event = ConsoleEvent("message")
        event.string("message", text)
        return event.line
    }

    /// Under the lock.
    private func enqueue(_ line: String) {
        let size = line.utf8.count + 1
        guard queued.count + size <= capacity else {
            dropped += 1
            return
        }
        if dropped > 0 {
            let notice = "mock-backend: \(dropped) console \(dropped == 1 ? "line was" : "lines were") dropped: "
                + "standard output was not being read"
            queued.append(contentsOf: (jsonLines ? Self.message(notice) : notice).utf8)
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
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
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

/// One console line in `--log-format json`: `{"at":"…","event":"start",…}`, its fields in the
/// order they are added.
public struct ConsoleEvent {
    private var writer = JSONWriter(escapeSlash: false)

    public init(_ event: String, at date: Date = Date()) {
        writer.beginObject()
        string("at", ISO8601.format(date))
        string("event", event)
    }

    public mutating func string(_ key: String, _ value: String?) {
        writer.key(key)
        if let value { writer.string(value) } else { writer.null() }
    }

    public mutating func int(_ key: String, _ value: Int) { writer.member(key, value) }
    public mutating func bool(_ key: String, _ value: Bool) { writer.member(key, value) }
    public mutating func strings(_ key: String, _ values: [String]) { writer.member(key, values) }

    /// A JSON value written by the caller (an array of objects).
    public mutating func raw(_ key: String, _ json: [UInt8]) {
        writer.key(key)
        writer.raw(json)
    }

    public var line: String {
        var copy = writer
        copy.endObject()
        return String(decoding: copy.bytes, as: UTF8.self)
    }
}
