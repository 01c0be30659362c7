#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

// The socket side of `ConnectionFault.reset`, apart from the enum so that the fuzz harnesses,
// which build Message.swift without the platform files, need only the enum.
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
