// The POSIX calls the server makes, poll(2) among them, written once for both systems. What differs
// between Linux and macOS (epoll among it) is in PlatformLinux.swift and PlatformDarwin.swift (`OS`).
// No Foundation here (on Linux it re-exports Glibc): scripts/check-darwin.sh compiles this file and
// PlatformDarwin.swift against a stand-in Darwin module.
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#else
#error("mock-backend builds on macOS (Darwin) and Linux (Glibc) only")
#endif

public enum SocketError: Error, CustomStringConvertible, Equatable {
    case addressInUse(host: String, port: Int)
    case cannotResolve(host: String)
    /// A port below 1024 this user may not listen on.
    case privilegedPort(Int)
    /// `host` is no address of this machine; `available` are some that are.
    case addressNotAvailable(host: String, available: [String])
    case system(call: String, errno: Int32)

    public var description: String {
        explained { flag, value in value.map { "\(flag) \($0)" } ?? flag }
    }

    /// The description, with each setting to change spelled by `setting` (`--port`, `--port 8080`;
    /// a command line may spell it as the environment variable that gave it, `PORT=8080`).
    public func explained(setting: (_ flag: String, _ value: String?) -> String) -> String {
        switch self {
        case let .addressInUse(host, port):
            return "port \(port) is already in use on \(host); stop the other server or choose another port with \(setting("--port", nil))"
        case let .cannotResolve(host):
            return "cannot listen on host \(host): the name does not resolve to a local address"
        case let .privilegedPort(port):
            // 80 -> 8080 and 443 -> 8443, the usual unprivileged stand-ins.
            return "port \(port) needs privileges this user does not have (ports below 1024 do); "
                + "choose another with \(setting("--port", nil)), e.g. \(setting("--port", String(8000 + port)))"
        case let .addressNotAvailable(host, available):
            return "this machine has no address \(host); use \(setting("--host", "0.0.0.0")) (every interface) or one of: "
                + available.joined(separator: ", ")
        case let .system(call, code):
            return "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// Thin wrappers over the POSIX socket calls the server uses.
enum Sys {
    enum AcceptResult {
        case accepted(Int32, PeerAddress)
        case wouldBlock
        case outOfDescriptors
        case failed
    }

    /// Raises the soft open-files limit to the hard one; returns the soft limit in force.
    static func raiseOpenFilesLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(OS.openFilesResource, &limit) == 0 else { return 1024 }
        let wanted = min(limit.rlim_max, OS.openFilesCeiling)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(OS.openFilesResource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
    }

    /// 127.0.0.1 and ::1, both with port 0.
    private static var loopbackAddresses: [SocketAddress] { numeric(["127.0.0.1", "::1"]) }

    /// The addresses numeric hosts spell, with port 0 (the resolver needs no network for them).
    private static func numeric(_ hosts: [String]) -> [SocketAddress] {
        hosts.flatMap { (try? resolve(host: $0, port: 0)) ?? [] }
    }

    /// A socket address as bytes, ready for bind or connect.
    struct SocketAddress: Equatable {
        var family: Int32
        var bytes: [UInt8]

        /// The port sits at the same offset (2) in `sockaddr_in` and `sockaddr_in6` on Linux and macOS.
        func with(port: Int) -> SocketAddress {
            var copy = self
            copy.bytes[2] = UInt8(port >> 8)
            copy.bytes[3] = UInt8(port & 0xFF)
            return copy
        }

        var port: Int { Int(bytes[2]) << 8 | Int(bytes[3]) }

        var host: String { bytes.withUnsafeBytes { Sys.address(of: $0.baseAddress!).host } }
    }

    /// Listening sockets for `host`, all on one port. nil, `::` and `*` mean every interface: one
    /// dual-stack IPv6 socket, or IPv4 only when the system has no IPv6. A name is bound on every
    /// address it resolves to, and `localhost` is both 127.0.0.1 and ::1 whatever the hosts file says
    /// (macOS resolves it to ::1 first; the simulator, browsers and the Android emulator's 10.0.2.2
    /// forwarding connect to 127.0.0.1).
    static func makeListeners(host: String?, port: Int) throws(SocketError) -> (fds: [Int32], port: Int, family: Int32) {
        let everywhere = host == nil || host == "::" || host == "*"
        var wanted: [SocketAddress] = []
        if everywhere {
            wanted = numeric(["::", "0.0.0.0"])
        } else if host == "localhost" {
            wanted = loopbackAddresses
        } else if let host {
            for address in try resolve(host: host, port: 0) where !wanted.contains(address) { wanted.append(address) }
            // Before the probe below: a connection to an address elsewhere may well be answered.
            wanted = wanted.filter(isLocal)
            if wanted.isEmpty { throw .addressNotAvailable(host: host, available: ["127.0.0.1"] + lanAddresses()) }
        }
        if port != 0 { try refuseIfAnswered(port: port, for: wanted, everywhere: everywhere) }
        // With port 0 the first socket picks the port and the others must get the same one; if it is
        // taken on another address, start over.
        var attempts = port == 0 ? 5 : 1
        while true {
            attempts -= 1
            do throws(SocketError) {
                return try bindAll(wanted, port: port, host: host ?? "*", firstSuffices: everywhere)
            } catch let error {
                if case .addressInUse = error, attempts > 0 { continue }
                throw error
            }
        }
    }

    private static func bindAll(_ addresses: [SocketAddress], port: Int, host: String,
                                firstSuffices: Bool) throws(SocketError) -> (fds: [Int32], port: Int, family: Int32) {
        var fds: [Int32] = []
        var chosenPort = port, family = AF_UNSPEC
        var lastError = SocketError.cannotResolve(host: host)
        for address in addresses {
            switch bindListener(address.with(port: chosenPort)) {
            case let .success(fd):
                fds.append(fd)
                if chosenPort == 0 { chosenPort = boundPort(fd) }
                if family == AF_UNSPEC { family = address.family }
            case let .failure(error):
                // An address this machine lacks (no IPv6, say) is skipped; a busy one is not.
                if case .addressInUse = error {
                    for fd in fds { close(fd) }
                    throw port == 0 ? error : .addressInUse(host: firstSuffices ? host : address.host, port: port)
                }
                lastError = error
            }
            if firstSuffices && !fds.isEmpty { break }
        }
        guard !fds.isEmpty else { throw lastError }
        return (fds, chosenPort, family)
    }

    private static func bindListener(_ address: SocketAddress) -> Result<Int32, SocketError> {
        let fd = socket(address.family, OS.streamType, 0)
        guard fd >= 0 else { return .failure(.system(call: "socket", errno: errno)) }
        var on: Int32 = 1, off: Int32 = 0
        // Restarts must not wait for old connections in TIME_WAIT. On BSD this option also lets a
        // wildcard socket share a port with another program's specific one: see refuseIfAnswered.
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if address.family == AF_INET6 {
            // Dual stack for `::`; for ::1 it makes no difference.
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = address.bytes.withUnsafeBytes { raw in
            bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        if bound != 0 {
            let code = errno
            close(fd)
            switch code {
            case EADDRINUSE: return .failure(.addressInUse(host: address.host, port: 0))
            case EACCES where (1..<1024).contains(address.port): return .failure(.privilegedPort(address.port))
            default: return .failure(.system(call: "bind", errno: code))
            }
        }
        guard listen(fd, OS.listenBacklog) == 0 else {
            let code = errno
            close(fd)
            return .failure(.system(call: "listen", errno: code))
        }
        setNonBlocking(fd)
        return .success(fd)
    }

    /// False when this machine has no such address (a bind to it fails with EADDRNOTAVAIL).
    private static func isLocal(_ address: SocketAddress) -> Bool {
        let fd = socket(address.family, OS.streamType, 0)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        let bound = address.with(port: 0).bytes.withUnsafeBytes { raw in
            bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        return bound == 0 || errno != EADDRNOTAVAIL
    }

    /// Throws when another program already answers on the port where clients of these addresses
    /// would connect (the loopback addresses, for a wildcard). Linux refuses such a bind itself; macOS
    /// binds a wildcard socket beside another program's 127.0.0.1 socket, and IPv4 clients would then
    /// silently reach that program.
    private static func refuseIfAnswered(port: Int, for addresses: [SocketAddress], everywhere: Bool) throws(SocketError) {
        let wildcards = ["0.0.0.0", "::"]
        let probes = everywhere || addresses.contains { wildcards.contains($0.host) } ? loopbackAddresses : addresses
        for probe in probes {
            if let fd = try? dialAddress(probe.with(port: port), timeout: 1) {
                close(fd)
                throw .addressInUse(host: probe.host, port: port)
            }
        }
    }

    private static func resolve(host: String, port: Int) throws(SocketError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_socktype = OS.streamType
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw .cannotResolve(host: host)
        }
        defer { freeaddrinfo(list) }
        var found: [SocketAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let entry = node {
            if let address = entry.pointee.ai_addr {
                let raw = UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen))
                found.append(SocketAddress(family: entry.pointee.ai_family, bytes: Array(raw)))
            }
            node = entry.pointee.ai_next
        }
        return found
    }

    private static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        return withUnsafeBytes(of: storage) { address(of: $0.baseAddress!) }.port
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    static func accept(_ listener: Int32) -> AcceptResult {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { OS.acceptNonBlocking(listener, $0, &length) }
        }
        guard fd >= 0 else {
            switch errno {
            case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED: return .wouldBlock
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfDescriptors
            default: return .failed
            }
        }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return .accepted(fd, withUnsafeBytes(of: storage) { address(of: $0.baseAddress!) })
    }

    /// The address and port of the `sockaddr` at `raw`.
    static func address(of raw: UnsafeRawPointer) -> PeerAddress {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let port: UInt16
        switch Int32(raw.load(as: sockaddr.self).sa_family) {
        case AF_INET:
            var v4 = raw.load(as: sockaddr_in.self)
            inet_ntop(AF_INET, &v4.sin_addr, &text, socklen_t(text.count))
            port = v4.sin_port
        case AF_INET6:
            var v6 = raw.load(as: sockaddr_in6.self)
            inet_ntop(AF_INET6, &v6.sin6_addr, &text, socklen_t(text.count))
            port = v6.sin6_port
        default:
            return PeerAddress(host: "local", port: 0)
        }
        var host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // An IPv4 client on the dual-stack socket: show it as the IPv4 address it is.
        if host.hasPrefix("::ffff:") && host.contains(".") { host.removeFirst(7) }
        return PeerAddress(host: host, port: Int(UInt16(bigEndian: port)))
    }

    /// Waits at most `milliseconds` for `fd` to have something to read (or its end): true when it
    /// has, false when the time passed; nil on an error.
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool? {
        var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&watched, 1, milliseconds)
            if ready >= 0 { return ready > 0 }
            if errno != EINTR { return nil }
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
        while true {
            let n = send(fd, buffer.baseAddress, buffer.count, OS.sendFlags)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            return (errno == EAGAIN || errno == EWOULDBLOCK) ? -1 : -2
        }
    }

    static func shutdownWrite(_ fd: Int32) {
        shutdown(fd, OS.shutWrite)
    }

    /// True when the last failed call failed because the peer reset the connection (ECONNRESET).
    static var lastCallWasReset: Bool { errno == ECONNRESET }

    /// Makes the next close send a reset instead of an orderly end of stream (SO_LINGER, zero timeout).
    static func resetOnClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    static func close(_ fd: Int32) {
        OS.close(fd)
    }

    /// A blocking client socket connected to `host:port`, with send and receive timeouts.
    static func dial(host: String, port: Int, timeout: Double) throws(SocketError) -> Int32 {
        var lastError = SocketError.cannotResolve(host: host)
        for address in try resolve(host: host, port: port) {
            do throws(SocketError) {
                return try dialAddress(address, timeout: timeout)
            } catch let error {
                lastError = error
            }
        }
        throw lastError
    }

    private static func dialAddress(_ address: SocketAddress, timeout: Double) throws(SocketError) -> Int32 {
        let fd = socket(address.family, OS.streamType, 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: suseconds_t((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        OS.preventSIGPIPE(fd)
        let result = address.bytes.withUnsafeBytes { raw in
            connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw .system(call: "connect", errno: code)
        }
        return fd
    }

    /// Every interface's IPv4 and IPv6 addresses, loopback included, in the system's order;
    /// `SameNetwork` picks those worth showing.
    static func interfaceAddresses() -> [(name: String, address: String)] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var found: [(name: String, address: String)] = []
        var node = list
        while let entry = node {
            node = entry.pointee.ifa_next
            guard let address = entry.pointee.ifa_addr, [AF_INET, AF_INET6].contains(Int32(address.pointee.sa_family)) else {
                continue
            }
            found.append((String(cString: entry.pointee.ifa_name), Sys.address(of: address).host))
        }
        return found
    }

    /// This machine's IPv4 addresses but loopback, bridges and link-local included: any of them
    /// can be given to `--host` (`SameNetwork` picks those to offer to other devices).
    static func lanAddresses() -> [String] {
        var found: [String] = []
        for (_, address) in interfaceAddresses() where !address.contains(":") && !address.hasPrefix("127.") && !found.contains(address) {
            found.append(address)
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

    /// The write end of the pipe that SIGINT and SIGTERM go to.
    nonisolated(unsafe) private static var terminationPipe: Int32 = -1

    /// Makes SIGINT and SIGTERM write their number to a pipe instead of ending the process; returns
    /// the read end (nil when no pipe could be made).
    static func redirectTerminationSignals() -> Int32? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        terminationPipe = ends[1]
        for number in [SIGINT, SIGTERM] {
            // Only async-signal-safe work in the handler: one write.
            signal(number) { received in
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(Sys.terminationPipe, &byte, 1)
            }
        }
        return ends[0]
    }

    /// One byte from a blocking descriptor; nil at its end or on an error.
    static func readByte(_ fd: Int32) -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
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

/// Getting written bytes onto the disk itself, for state that must survive a power cut. Each system
/// has its own `sync(fd)` (flushes what was written to `fd` to stable storage; false on failure,
/// errno says why) and `confirmJournal(fd)` (after a successful flush: the file system still takes
/// a journalled change, so no journal abort let the flush through without the data; true where
/// the check cannot be made).
public enum Durability {
    /// Makes a rename or a new file in `directory` durable by syncing the directory itself.
    public static func syncDirectory(_ directory: String) -> Bool {
        let fd = open(directory, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { OS.close(fd) }
        return sync(fd)
    }
}

struct PollEvent {
    var fd: Int32
    var readable: Bool
    var writable: Bool
}

/// Watches descriptors for one event loop, level-triggered.
protocol Poller: AnyObject {
    func addListener(_ fd: Int32)
    func add(_ fd: Int32, readable: Bool, writable: Bool)
    func modify(_ fd: Int32, readable: Bool, writable: Bool)
    func remove(_ fd: Int32)
    func wait(timeoutMilliseconds: Int32, _ body: (PollEvent) -> Void)
}

/// How event loops wait: `epoll` (Linux only, the default there) or `poll`, the portable poll(2)
/// that macOS uses. On Linux, `--poller poll` or MOCK_POLLER=poll selects it, so CI runs the code a
/// Mac runs.
public enum PollerKind: String, Sendable {
    case epoll, poll

    /// What this system offers, its default first.
    public static var available: [PollerKind] { OS.pollers }

    /// MOCK_POLLER when it names one this system offers, else the system's default.
    public static var standard: PollerKind {
        if let name = getenv("MOCK_POLLER").map({ String(cString: $0) }), let kind = PollerKind(rawValue: name),
           available.contains(kind) {
            return kind
        }
        return available[0]
    }
}

/// poll(2): one array of descriptors, scanned by the kernel on every wait. Fine for the tens or
/// hundreds of connections a development server sees; epoll is for thousands.
final class PollPoller: Poller {
    private var watched: [pollfd] = []
    /// Where each descriptor sits in `watched`.
    private var slots: [Int32: Int] = [:]
    private var ready: [PollEvent] = []

    func addListener(_ fd: Int32) { add(fd, readable: true, writable: false) }

    func add(_ fd: Int32, readable: Bool, writable: Bool) {
        guard slots[fd] == nil else { return modify(fd, readable: readable, writable: writable) }
        slots[fd] = watched.count
        watched.append(pollfd(fd: fd, events: Self.mask(readable: readable, writable: writable), revents: 0))
    }

    func modify(_ fd: Int32, readable: Bool, writable: Bool) {
        guard let slot = slots[fd] else { return }
        watched[slot].events = Self.mask(readable: readable, writable: writable)
    }

    func remove(_ fd: Int32) {
        guard let slot = slots.removeValue(forKey: fd) else { return }
        let last = watched.removeLast()
        if slot < watched.count {
            watched[slot] = last
            slots[last.fd] = slot
        }
    }

    private static func mask(readable: Bool, writable: Bool) -> Int16 {
        (readable ? Int16(POLLIN) : 0) | (writable ? Int16(POLLOUT) : 0)
    }

    /// Events are collected first: `body` adds and removes descriptors, which reorders `watched`.
    func wait(timeoutMilliseconds: Int32, _ body: (PollEvent) -> Void) {
        let count = watched.withUnsafeMutableBufferPointer {
            poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds)
        }
        guard count > 0 else { return }
        ready.removeAll(keepingCapacity: true)
        // A hang-up or error is reported as readable: the read that follows finds it.
        let readable = Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
        for entry in watched where entry.revents != 0 {
            ready.append(PollEvent(fd: entry.fd, readable: entry.revents & readable != 0,
                                   writable: entry.revents & Int16(POLLOUT) != 0))
        }
        for event in ready where slots[event.fd] != nil { body(event) }
    }
}
