import Dispatch
import Foundation

public struct ServerConfiguration: Sendable {
    /// nil listens on every interface, IPv6 and IPv4.
    public var host: String?
    public var port = 8080
    public var limits = ParserLimits()
    /// A request head must arrive within this many seconds of its first byte.
    public var headerTimeout = 10.0
    /// A body that makes no progress for this long is abandoned.
    public var bodyTimeout = 30.0
    /// A body arriving slower than this, on average since its first byte, is abandoned once
    /// `slowBodyGrace` seconds have passed (a slow POST holds its connection no longer).
    public var minBodyBytesPerSecond = 1024.0
    public var slowBodyGrace = 10.0
    /// An idle keep-alive connection is closed after this long.
    public var idleTimeout = 60.0
    public var maxConnections = 20_000
    /// Connections one peer address may hold at once; nil for the default, 1,000 but at most half
    /// the cap, so that one address never takes every slot.
    public var maxConnectionsPerAddress: Int?
    /// Bytes all connections together may hold in request bodies, buffered input and queued output
    /// (docs/reliability.md#memory-budget).
    public var memoryBudget = 256 << 20
    /// What one peer address may hold of it when a body asks for more; nil for half the budget.
    public var memoryBudgetPerAddress: Int?
    public var threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
    public var poller = PollerKind.standard
    /// The time the `Date` header shows: the app's clock, which may stand still (`--clock`).
    public var now: @Sendable () -> Date = { Date() }

    public init() {}
}

/// A hand-written HTTP/1.1 server: listening sockets (one per address) shared by a few event loops,
/// each with its own poller and connections. Handlers run on the loop threads; nothing parks a
/// thread per client.
public final class HTTPServer: @unchecked Sendable {
    public let configuration: ServerConfiguration
    let responder: any HTTPResponder
    /// Set before any loop runs, read-only afterwards.
    private(set) var loops: [EventLoop] = []
    private var listeners: [Int32] = []
    public private(set) var port = 0
    /// True when the socket accepts IPv4 and IPv6 alike.
    public private(set) var isDualStack = false
    /// The connection cap in force: the configured one, lowered to fit the open-files limit.
    public private(set) var connectionCap = 0

    private let lock = NSLock()
    private var openConnections = 0
    private var connectionsByAddress: [String: Int] = [:]
    /// The per-address limit in force (`maxConnectionsPerAddress`, at most half the cap).
    public private(set) var connectionCapPerAddress = 0
    private var stopRequested = false
    private let stopped = DispatchGroup()
    let memory: MemoryBudget
    /// Where requests with costly bodies are answered (`EventLoop.costlyBody`), one core's worth
    /// fewer than the loops, so that the loops keep a core.
    let workers: OperationQueue

    /// `memory`: the budget the course APIs also charge stored text to (`budget(for:)`); by default its own.
    public init(configuration: ServerConfiguration, responder: any HTTPResponder, memory: MemoryBudget? = nil) {
        self.configuration = configuration
        self.responder = responder
        self.memory = memory ?? Self.budget(for: configuration)
        workers = OperationQueue()
        workers.name = "http-costly-bodies"
        workers.maxConcurrentOperationCount = max(1, configuration.threads - 1)
    }

    /// The memory budget `configuration` asks for (`memoryBudget`, `memoryBudgetPerAddress`).
    public static func budget(for configuration: ServerConfiguration) -> MemoryBudget {
        MemoryBudget(limit: configuration.memoryBudget,
                     limitPerAddress: configuration.memoryBudgetPerAddress ?? configuration.memoryBudget / 2)
    }

    /// Binds and starts the loops; throws when the port is busy or the host unknown.
    public func start() throws(SocketError) {
        signal(SIGPIPE, SIG_IGN)
        let fileLimit = Sys.raiseOpenFilesLimit()
        // Keep a reserve of descriptors for seed files, state writes and the loops themselves.
        connectionCap = max(16, min(configuration.maxConnections, fileLimit - 64))
        connectionCapPerAddress = configuration.maxConnectionsPerAddress ?? max(1, min(1000, connectionCap / 2))
        let bound = try Sys.makeListeners(host: configuration.host, port: configuration.port)
        listeners = bound.fds
        port = bound.port
        isDualStack = bound.family == AF_INET6 && (configuration.host == nil || configuration.host == "::")
        loops = (0..<configuration.threads).map {
            EventLoop(server: self, listeners: listeners, index: $0, poller: OS.makePoller(configuration.poller))
        }
        for loop in loops {
            stopped.enter()
            let thread = Thread { [stopped] in
                loop.run()
                stopped.leave()
            }
            thread.name = "http-loop-\(loop.index)"
            // Foundation's default is 8 MiB on Linux but 512 KiB on macOS; nested JSON and
            // multipart recursion are sized for the former.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Stops accepting, lets requests in flight finish for up to `grace` seconds, then closes
    /// everything; a request still busy then is logged as cut off. Returns when every loop has
    /// ended. A second call, from another thread, can shorten the grace (a second Ctrl-C).
    public func stop(grace: Double = 5) {
        lock.lock()
        let first = !stopRequested
        stopRequested = true
        lock.unlock()
        for loop in loops { loop.requestStop(grace: grace) }
        stopped.wait()
        // A request a worker still answers (its client cut off) finishes its change before the caller goes on.
        workers.waitUntilAllOperationsAreFinished()
        if first {
            for listener in listeners { Sys.close(listener) }
        }
    }

    /// Requests answered (by the responder or by the HTTP layer's own errors) and requests cut
    /// off by the stop; exact once `stop` has returned.
    public var requestCounts: (answered: Int, cutOff: Int) {
        loops.reduce((0, 0)) { ($0.0 + $1.answered, $0.1 + $1.cutOff) }
    }

    var isStopping: Bool { lock.locked { stopRequested } }

    /// The loop a new connection goes to: among those a new client would wait least on (within
    /// 5 ms of the shortest wait), the one with the fewest connections, the acceptor on a tie (no
    /// hand-over). The chosen loop counts the connection at once, so a burst is spread too.
    func loop(forConnectionAcceptedBy acceptor: EventLoop, now: Double) -> EventLoop {
        let loads = loops.map { $0.load(now: now) }
        let shortest = loads.map(\.wait).min() ?? 0
        func rank(_ index: Int) -> (Int, Int) { (loads[index].connections, loops[index] === acceptor ? 0 : 1) }
        let best = loads.indices.lazy.filter { loads[$0].wait <= shortest + 0.005 }.min { rank($0) < rank($1) }
        let loop = loops[best ?? 0]
        loop.countArrival()
        return loop
    }

    /// Reserves a connection slot; false when the cap is reached.
    func reserveConnection() -> Bool {
        lock.locked {
            guard openConnections < connectionCap else { return false }
            openConnections += 1
            return true
        }
    }

    func releaseConnection() {
        lock.locked { openConnections -= 1 }
    }

    /// Counts an accepted connection against its peer address; false when that address holds its
    /// share already (the connection is then closed unanswered).
    func admit(_ peer: PeerAddress) -> Bool {
        lock.locked {
            let held = connectionsByAddress[peer.host, default: 0]
            guard held < connectionCapPerAddress else { return false }
            connectionsByAddress[peer.host] = held + 1
            return true
        }
    }

    func dismiss(_ peer: PeerAddress) {
        lock.locked {
            let held = connectionsByAddress[peer.host, default: 1] - 1
            connectionsByAddress[peer.host] = held > 0 ? held : nil
        }
    }

    /// This machine's IPv4 addresses but loopback: those `--host` can listen on.
    public static var lanAddresses: [String] { Sys.lanAddresses() }

    /// Bytes counted against the memory budget now, in whole granules per connection (for tests).
    public var memoryInUse: Int { memory.inUse }

    /// Open connections across all loops (for health and tests).
    public var connectionCount: Int { lock.locked { openConnections } }
}

/// Seconds on a monotonic clock.
@inline(__always)
func monotonicNow() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
