#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#else
#error("mock-backend builds on macOS (Darwin) and Linux (Glibc) only")
#endif

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
