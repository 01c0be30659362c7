#if canImport(Glibc)
// What Linux does differently from macOS (PlatformDarwin.swift); the rest is in Platform.swift.
import CPlatform
import Glibc

enum OS {
    static let streamType = Int32(SOCK_STREAM.rawValue)
    /// MSG_NOSIGNAL on every send: a client gone away must not raise SIGPIPE.
    static let sendFlags = Int32(MSG_NOSIGNAL)
    static let shutWrite = Int32(SHUT_WR)
    /// The kernel caps it at net.core.somaxconn (4096 on current kernels).
    static let listenBacklog: Int32 = 4096
    static let openFilesCeiling = rlim_t.max
    static let openFilesResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    static let pollers: [PollerKind] = [.epoll, .poll]

    static func makePoller(_ kind: PollerKind) -> any Poller {
        kind == .epoll ? EpollPoller() : PollPoller()
    }

    /// accept4: non-blocking and close-on-exec in the same call.
    static func acceptNonBlocking(_ listener: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Int32 {
        mock_accept_nonblocking(listener, address, &length)
    }

    /// Nothing to do: sendFlags keeps SIGPIPE away.
    static func preventSIGPIPE(_ fd: Int32) {}

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }
}

extension Durability {
    /// Linux's fsync flushes the drive's write cache too.
    public static func sync(_ fd: Int32) -> Bool {
        fsync(fd) == 0
    }

    /// Sets a one-byte user attribute on the file: a change that needs a journal handle, refused at
    /// once (EROFS, EIO) once ext4's journal has aborted. File systems without user attributes
    /// (ENOTSUP, EOPNOTSUPP; EPERM where the file's type forbids them) offer no such check.
    public static func confirmJournal(_ fd: Int32) -> Bool {
        var mark: UInt8 = 1
        if fsetxattr(fd, "user.mock-backend.flushed", &mark, 1, 0) == 0 { return true }
        return [ENOTSUP, EOPNOTSUPP, EPERM, ENOSYS].contains(errno)
    }
}

/// Level-triggered epoll.
final class EpollPoller: Poller {
    private let epfd: Int32
    private var events = [epoll_event](repeating: epoll_event(), count: 512)

    init() {
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
    }

    deinit { Sys.close(epfd) }

    private func mask(readable: Bool, writable: Bool) -> UInt32 {
        (readable ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0) | (writable ? EPOLLOUT.rawValue : 0)
    }

    /// Listening sockets are shared by every loop; only one loop is woken per connection.
    func addListener(_ fd: Int32) {
        var event = epoll_event(events: EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue, data: epoll_data_t(fd: fd))
        _ = epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event)
    }

    func add(_ fd: Int32, readable: Bool, writable: Bool) {
        var event = epoll_event(events: mask(readable: readable, writable: writable), data: epoll_data_t(fd: fd))
        _ = epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event)
    }

    func modify(_ fd: Int32, readable: Bool, writable: Bool) {
        var event = epoll_event(events: mask(readable: readable, writable: writable), data: epoll_data_t(fd: fd))
        _ = epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event)
    }

    func remove(_ fd: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event)
    }

    func wait(timeoutMilliseconds: Int32, _ body: (PollEvent) -> Void) {
        // Unwrapped here: glibc 2.41 (Debian 13) declares the events pointer non-null, 2.36 does not.
        let count = events.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let first = buffer.baseAddress else { return 0 }
            return epoll_wait(epfd, first, Int32(buffer.count), timeoutMilliseconds)
        }
        guard count > 0 else { return }
        for event in events[..<Int(count)] {
            let bits = event.events
            body(PollEvent(fd: event.data.fd,
                           readable: bits & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0,
                           writable: bits & EPOLLOUT.rawValue != 0))
        }
    }
}
#endif
