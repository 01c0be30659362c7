import MockHTTP

/// What only the tests ask of `BlockingClient`: how the server ends a stream.
extension BlockingClient {
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
