/// A way for an answer to go wrong on the wire, as a real network does. The event loop obeys it
/// when the answer is due (after any delay); none of it reaches the client as HTTP.
public enum ConnectionFault: Sendable, Equatable {
    /// Reset the connection (TCP RST) instead of answering: the client's read fails with ECONNRESET.
    case reset
    /// Close the connection without a byte of this answer: the client reads end of stream.
    case close
    /// Send the head, with the whole body's Content-Length, and half the body (half the head when
    /// there is no body), then close.
    case truncate
    /// Send the head at once, then the body at this many bytes per second.
    case slowBody(bytesPerSecond: Int)
}
