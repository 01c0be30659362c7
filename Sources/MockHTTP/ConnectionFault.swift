#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

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

extension Sys {
    /// True when the last failed call failed because the peer reset the connection (ECONNRESET).
    static var lastCallWasReset: Bool { errno == ECONNRESET }

    /// Makes the next close send a reset instead of an orderly end of stream (SO_LINGER, zero timeout).
    static func resetOnClose(_ fd: Int32) {
        var linger = SocketLinger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<SocketLinger>.size))
    }
}

#if canImport(Darwin)
private typealias SocketLinger = Darwin.linger
#else
private typealias SocketLinger = Glibc.linger
#endif
