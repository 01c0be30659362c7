#if canImport(Darwin)
// What macOS does differently from Linux (PlatformLinux.swift); the rest is in Platform.swift.
// scripts/check-darwin.sh type-checks this file on Linux against a stand-in Darwin module.
import Darwin

enum OS {
    static let streamType = SOCK_STREAM
    /// No MSG_NOSIGNAL on macOS: every socket gets SO_NOSIGPIPE instead (preventSIGPIPE).
    static let sendFlags: Int32 = 0
    static let shutWrite = SHUT_WR
    /// macOS silently caps the backlog at kern.ipc.somaxconn (128 unless raised with sysctl).
    static let listenBacklog = SOMAXCONN
    /// setrlimit refuses a soft open-files limit above OPEN_MAX, even under an unlimited hard one.
    static let openFilesCeiling = rlim_t(OPEN_MAX)
    static let openFilesResource = RLIMIT_NOFILE
    /// No epoll on macOS.
    static let pollers: [PollerKind] = [.poll]

    static func makePoller(_ kind: PollerKind) -> any Poller {
        PollPoller()
    }

    /// No accept4 on macOS: the flags are set one call at a time.
    static func acceptNonBlocking(_ listener: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Int32 {
        let fd = accept(listener, address, &length)
        guard fd >= 0 else { return fd }
        Sys.setNonBlocking(fd)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        preventSIGPIPE(fd)
        return fd
    }

    static func preventSIGPIPE(_ fd: Int32) {
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    static func close(_ fd: Int32) {
        _ = Darwin.close(fd)
    }
}

extension Durability {
    /// fsync on macOS stops at the drive's cache; F_FULLFSYNC reaches the medium. Some file systems
    /// (network, FAT) refuse F_FULLFSYNC: fsync is the best they offer.
    public static func sync(_ fd: Int32) -> Bool {
        fcntl(fd, F_FULLFSYNC) != -1 || fsync(fd) == 0
    }

    /// APFS and HFS+ have no journal abort that lets a flush through: nothing to check.
    public static func confirmJournal(_ fd: Int32) -> Bool {
        true
    }
}
#endif
