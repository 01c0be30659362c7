@testable import MockHTTP

/// What only the tests ask of `BlockingClient`: when and how the server ends a stream.
extension BlockingClient {
    public func shutdownWrite() { Sys.shutdownWrite(fd) }

    /// Waits until the server has begun to answer, however long that takes, as long as
    /// `working()` (asked about once a second) says it is still at it; false when it stopped
    /// without an answer. For an answer whose time is the server's work, not a fixed timeout.
    public func waitForAnswer(while working: () -> Bool) -> Bool {
        guard buffer.isEmpty else { return true }
        while true {
            guard let ready = Sys.waitReadable(fd, milliseconds: 1000) else { return false }
            if ready { return true }
            if !working() { return false }
        }
    }

    /// How the server ended the stream, as a client's read sees it.
    public enum StreamEnd: Sendable, Equatable {
        /// An orderly close: the read returned 0.
        case endOfStream
        /// The read failed with ECONNRESET.
        case reset
        /// Still open when the timeout passed (or another error).
        case timedOut
    }

    /// Everything until the server ends the stream, and how it did.
    public func readUntilEnd() -> (bytes: [UInt8], end: StreamEnd) {
        var count = receive()
        while count > 0 { count = receive() }
        let end: StreamEnd = count == 0 ? .endOfStream : (wasReset ? .reset : .timedOut)
        defer { buffer.removeAll() }
        return (buffer, end)
    }

    /// The bytes of one read, or none at end of stream, on error or on timeout.
    public func receiveOnce() -> [UInt8] {
        if buffer.isEmpty { _ = receive() }
        defer { buffer.removeAll() }
        return buffer
    }

    /// True when the server has closed its side: a read returns end of stream (or a reset).
    public func isClosedByServer() -> Bool {
        while !closed && receive() > 0 {}
        return closed
    }
}
