// Every call that differs between Linux and macOS lives in this file: sockets, polling, limits.
// A macOS build only needs this file to compile; the rest of MockHTTP is portable.
#if canImport(Glibc)
import CPlatform
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

public enum SocketError: Error, CustomStringConvertible, Equatable {
    case addressInUse(host: String, port: Int)
    case cannotResolve(host: String)
    case system(call: String, errno: Int32)

    public var description: String {
        switch self {
        case let .addressInUse(host, port):
            return "port \(port) is already in use on \(host); stop the other server or choose another port with --port"
        case let .cannotResolve(host):
            return "cannot listen on host \(host): the name does not resolve to a local address"
        case let .system(call, code):
            return "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// Thin wrappers over the POSIX socket calls the server uses.
enum Sys {
    #if canImport(Glibc)
    static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    static let streamType = SOCK_STREAM
    #endif

    enum AcceptResult {
        case accepted(Int32, PeerAddress)
        case wouldBlock
        case outOfDescriptors
        case failed
    }

    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Raises the soft open-files limit to the hard one; returns the soft limit in force.
    static func raiseOpenFilesLimit() -> Int {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        var wanted = limit.rlim_max
        #if canImport(Darwin)
        wanted = min(wanted, rlim_t(OPEN_MAX))
        #endif
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
    }

    /// A listening socket for `host` (nil: every interface, IPv6 and IPv4 when the system has IPv6).
    static func makeListener(host: String?, port: Int) throws(SocketError) -> (fd: Int32, port: Int, family: Int32) {
        var candidates: [(family: Int32, address: [UInt8])] = []
        if let host, host != "::", host != "*" {
            candidates = try resolve(host: host, port: port)
        } else {
            var any6 = sockaddr_in6()
            any6.sin6_family = sa_family_t(AF_INET6)
            any6.sin6_port = in_port_t(UInt16(port).bigEndian)
            any6.sin6_addr = in6addr_any
            candidates.append((AF_INET6, bytes(of: any6)))
            candidates.append((AF_INET, bytes(of: ipv4Any(port: port))))
        }
        var lastError = SocketError.cannotResolve(host: host ?? "*")
        for candidate in candidates {
            let fd = socket(candidate.family, streamType, 0)
            guard fd >= 0 else {
                lastError = .system(call: "socket", errno: errno)
                continue
            }
            var on: Int32 = 1, off: Int32 = 0
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            if candidate.family == AF_INET6 {
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
            }
            let bound = candidate.address.withUnsafeBytes { raw in
                bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            if bound != 0 {
                let code = errno
                close(fd)
                if code == EADDRINUSE { throw .addressInUse(host: host ?? "*", port: port) }
                lastError = .system(call: "bind", errno: code)
                continue
            }
            guard listen(fd, 4096) == 0 else {
                lastError = .system(call: "listen", errno: errno)
                close(fd)
                continue
            }
            setNonBlocking(fd)
            return (fd, boundPort(fd), candidate.family)
        }
        throw lastError
    }

    private static func ipv4Any(port: Int) -> sockaddr_in {
        var any4 = sockaddr_in()
        any4.sin_family = sa_family_t(AF_INET)
        any4.sin_port = in_port_t(UInt16(port).bigEndian)
        any4.sin_addr = in_addr(s_addr: INADDR_ANY)
        return any4
    }

    private static func resolve(host: String, port: Int) throws(SocketError) -> [(family: Int32, address: [UInt8])] {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_socktype = streamType
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw .cannotResolve(host: host)
        }
        defer { freeaddrinfo(list) }
        var found: [(Int32, [UInt8])] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let entry = node {
            if let address = entry.pointee.ai_addr {
                let raw = UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen))
                found.append((entry.pointee.ai_family, Array(raw)))
            }
            node = entry.pointee.ai_next
        }
        return found
    }

    private static func bytes<T>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }

    private static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        return address(of: storage).port
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    static func accept(_ listener: Int32) -> AcceptResult {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                #if canImport(Glibc)
                return mock_accept_nonblocking(listener, pointer, &length)
                #else
                return Darwin.accept(listener, pointer, &length)
                #endif
            }
        }
        guard fd >= 0 else {
            switch errno {
            case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED: return .wouldBlock
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfDescriptors
            default: return .failed
            }
        }
        var on: Int32 = 1
        #if canImport(Darwin)
        setNonBlocking(fd)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return .accepted(fd, address(of: storage))
    }

    static func address(of storage: sockaddr_storage) -> PeerAddress {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var address = v4.pointee.sin_addr
                    inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                    return PeerAddress(host: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: Int(UInt16(bigEndian: v4.pointee.sin_port)))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var address = v6.pointee.sin6_addr
                    inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                    var host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    // An IPv4 client on the dual-stack socket: show it as the IPv4 address it is.
                    if host.hasPrefix("::ffff:") && host.contains(".") { host.removeFirst(7) }
                    return PeerAddress(host: host, port: Int(UInt16(bigEndian: v6.pointee.sin6_port)))
                }
            }
        default:
            return PeerAddress(host: "local", port: 0)
        }
    }

    /// Reads into `buffer`; returns the count, 0 at end of stream, -1 when it would block, -2 on error.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            return (errno == EAGAIN || errno == EWOULDBLOCK) ? -1 : -2
        }
    }

    /// Writes without raising SIGPIPE; returns the count, -1 when it would block, -2 on error.
    static func transmit(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        while true {
            let n = send(fd, buffer.baseAddress, buffer.count, flags)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            return (errno == EAGAIN || errno == EWOULDBLOCK) ? -1 : -2
        }
    }

    static func shutdownWrite(_ fd: Int32) {
        #if canImport(Glibc)
        shutdown(fd, Int32(SHUT_WR))
        #else
        shutdown(fd, SHUT_WR)
        #endif
    }

    static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    /// A blocking client socket connected to `host:port`, with send and receive timeouts.
    static func dial(host: String, port: Int, timeout: Double) throws(SocketError) -> Int32 {
        let addresses = try resolve(host: host, port: port)
        var lastError = SocketError.cannotResolve(host: host)
        for candidate in addresses {
            let fd = socket(candidate.family, streamType, 0)
            guard fd >= 0 else { continue }
            var limit = timeval(tv_sec: Int(timeout), tv_usec: suseconds_t((timeout - timeout.rounded(.down)) * 1e6))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            #if canImport(Darwin)
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let result = candidate.address.withUnsafeBytes { raw in
                connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            if result == 0 { return fd }
            lastError = .system(call: "connect", errno: errno)
            close(fd)
        }
        throw lastError
    }

    /// IPv4 addresses of the machine's non-loopback interfaces, for the banner's LAN line.
    static func lanAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var found: [String] = []
        var node = list
        while let entry = node {
            if let address = entry.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: MemoryLayout<sockaddr_in>.size))
                }
                let host = Sys.address(of: storage).host
                if !host.hasPrefix("127."), !found.contains(host) { found.append(host) }
            }
            node = entry.pointee.ifa_next
        }
        return found
    }

    /// A pipe whose read end wakes a poller from another thread.
    static func makeWakePipe() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        _ = pipe(&ends)
        setNonBlocking(ends[0])
        setNonBlocking(ends[1])
        return (ends[0], ends[1])
    }

    /// Makes the wake pipe readable (recv and send work on sockets only).
    static func signalWakePipe(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }

    static func drainWakePipe(_ fd: Int32) {
        var scratch = [UInt8](repeating: 0, count: 64)
        while read(fd, &scratch, scratch.count) > 0 {}
    }
}





/// Runs `handler` once on SIGINT or SIGTERM (on the main queue), instead of the default exit.
/// Call it before starting any thread: the signals are blocked here and in every thread started
/// later, so one that comes before Dispatch has armed its source waits for it instead of being
/// dropped as ignored (a stop right after the first answer used to hang now and then).
public enum TerminationSignals {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    public static func handle(_ handler: @escaping @Sendable (Int32) -> Void) {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGINT)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }
}

/// Readiness of one descriptor.
struct PollEvent {
    var fd: Int32
    var readable: Bool
    var writable: Bool
    var hangup: Bool
}

#if canImport(Glibc)
/// Level-triggered epoll.
final class Poller {
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
        let count = events.withUnsafeMutableBufferPointer {
            epoll_wait(epfd, $0.baseAddress, Int32($0.count), timeoutMilliseconds)
        }
        guard count > 0 else { return }
        for index in 0..<Int(count) {
            let event = events[index]
            let bits = event.events
            body(PollEvent(fd: event.data.fd,
                           readable: bits & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0,
                           writable: bits & EPOLLOUT.rawValue != 0,
                           hangup: bits & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0))
        }
    }
}
#else
/// kqueue, with read and write filters kept in step with what the loop wants.
final class Poller {
    private let kq: Int32
    private var events = Array(repeating: kevent(), count: 512)

    init() {
        kq = kqueue()
    }

    deinit { Sys.close(kq) }

    private func change(_ fd: Int32, filter: Int16, enable: Bool) {
        var event = kevent(ident: UInt(fd), filter: filter, flags: UInt16(enable ? EV_ADD | EV_ENABLE : EV_DELETE),
                           fflags: 0, data: 0, udata: nil)
        _ = kevent(kq, &event, 1, nil, 0, nil)
    }

    func addListener(_ fd: Int32) { change(fd, filter: Int16(EVFILT_READ), enable: true) }

    func add(_ fd: Int32, readable: Bool, writable: Bool) { modify(fd, readable: readable, writable: writable) }

    func modify(_ fd: Int32, readable: Bool, writable: Bool) {
        change(fd, filter: Int16(EVFILT_READ), enable: readable)
        change(fd, filter: Int16(EVFILT_WRITE), enable: writable)
    }

    func remove(_ fd: Int32) {
        change(fd, filter: Int16(EVFILT_READ), enable: false)
        change(fd, filter: Int16(EVFILT_WRITE), enable: false)
    }

    func wait(timeoutMilliseconds: Int32, _ body: (PollEvent) -> Void) {
        var timeout = timespec(tv_sec: Int(timeoutMilliseconds / 1000), tv_nsec: Int(timeoutMilliseconds % 1000) * 1_000_000)
        let count = events.withUnsafeMutableBufferPointer {
            kevent(kq, nil, 0, $0.baseAddress, Int32($0.count), &timeout)
        }
        guard count > 0 else { return }
        for index in 0..<Int(count) {
            let event = events[index]
            let isRead = event.filter == Int16(EVFILT_READ)
            body(PollEvent(fd: Int32(event.ident), readable: isRead, writable: !isRead,
                           hangup: event.flags & UInt16(EV_EOF) != 0 && !isRead))
        }
    }
}
#endif
