import Foundation

extension Request {
    /// A request the HTTP layer ended itself: `-` where the request line was not read.
    init(line: RequestLine?, peer: PeerAddress) {
        self.init(method: line?.method ?? "-", target: line?.target ?? "-", peer: peer)
    }

    init(_ head: RequestHead, body: [UInt8] = [], peer: PeerAddress) {
        self.init(method: head.method, target: head.target, headers: head.headers, body: body, peer: peer)
    }
}

/// One connection, owned by one loop and touched only on its thread.
final class Connection {
    let fd: Int32
    let peer: PeerAddress
    var parser: RequestParser
    var output = OutputQueue()
    /// Close once the output is written (no keep-alive, or an HTTP-level error).
    var closeWhenFlushed = false
    /// Set once the write side is shut: input is read and dropped until the client closes or this passes.
    var drainDeadline: Double?
    /// A delayed answer is pending; later pipelined requests wait behind it.
    var awaitingDelayedResponse = false
    /// The request and answer of that delayed (or dribbled) answer, for the log line if a stop cuts it off.
    var heldAnswer: (request: Request, response: Response, startedAt: Double, isSending: Bool)?
    var peerClosed = false
    var lastActivity: Double
    let acceptedAt: Double
    /// Until a first request is complete, the connection must send one within the header timeout.
    var hasServedRequest = false
    var requestStartedAt: Double?
    /// Bytes read so far, and where the body being read began (time, bytes), for the minimum body rate.
    var bytesReceived = 0
    var bodyStarted: (at: Double, bytes: Int)?
    var interest = (readable: true, writable: false)
    /// What this connection counts against the server's memory budget.
    var charged = 0
    /// It used up its turn with requests still buffered, and is in the loop's queue for another.
    var waitsForTurn = false
    /// The body a worker thread is answering (`EventLoop.costlyBody`) with its parse room, counted until then.
    var bodyAtWorker = 0

    init(fd: Int32, peer: PeerAddress, limits: ParserLimits, now: Double) {
        self.fd = fd
        self.peer = peer
        parser = RequestParser(limits: limits)
        lastActivity = now
        acceptedAt = now
    }

    /// Between requests: nothing of one read, held back or unsent.
    var isIdle: Bool {
        !parser.hasBufferedBytes && !parser.isReadingBody && output.count == 0 && !awaitingDelayedResponse
    }
}

/// A request a worker thread answered, on its way back to its connection's loop.
private struct WorkerAnswer: @unchecked Sendable {
    /// Touched only on its loop's thread, once the answer is back there.
    let connection: Connection
    let request: Request
    let head: RequestHead
    let startedAt: Double
    var response = Response()
    /// How long the responder took; nil when no answer was built (the memory budget was full).
    var seconds: Double?
    /// The answer's size, counted as soon as it is built so the next worker sees it; the connection's on delivery.
    var charged = 0
}

/// An event loop: a thread that polls its connections and the shared listening socket.
final class EventLoop: @unchecked Sendable {
    private unowned let server: HTTPServer
    let index: Int
    /// The listening sockets, watched by every loop: a loop busy with a long request never keeps
    /// a new client from being accepted (poll(2) wakes every loop for a connection, epoll one).
    private let listeners: [Int32]
    private let poller: any Poller
    /// Connections another loop accepted for this one, taken on the next wake.
    private let handedLock = NSLock()
    private var handed: [(fd: Int32, peer: PeerAddress)] = []
    /// Pending answers that became ready on other threads, to finish on this one (under `handedLock`).
    private var readyAnswers: [() -> Void] = []
    /// Connections that used up their turn with requests left, served again after everyone else's events.
    private var turns: [Connection] = []
    /// Lingering connections the poll reported readable this round (`drainLingering`).
    private var lingering: [Connection] = []
    /// Requests (`costKey`) whose last answer took the loop `costlyAnswerSeconds` or more (a 20 MB
    /// tweet list): answered on a worker thread from then on, until one is quick again.
    private var costlyTargets: Set<String> = []
    /// How busy the loop is, for the loop handing out a new connection (`HTTPServer.loop(forConnectionAcceptedBy:)`).
    private let loadLock = NSLock()
    private var roundStartedAt: Double?
    private var lastRoundSeconds = 0.0
    private var publishedConnections = 0
    private let wakePipe = Sys.makeWakePipe()
    private var connections: [Int32: Connection] = [:]
    private var readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private let encoder: ResponseEncoder

    private var timers: [(at: Double, connection: Connection, action: () -> Void)] = []
    private var acceptResumesAt: Double?
    private var listening: Bool
    private var lastSweep = 0.0
    /// When this round began, as the loop's own thread knows it (no lock).
    private var roundStartedAtLocal: Double?

    private let stopLock = NSLock()
    private var stopDeadline: Double?
    /// Requests answered, and requests cut off by the stop; read once the loop has ended.
    private(set) var answered = 0
    private(set) var cutOff = 0

    /// Stop reading once this much output waits for a slow reader.
    private let outputHighWater = 1 << 20
    /// Input read ahead of the request being parsed (pipelined requests), outside a body: room
    /// for the largest head the parser accepts, so that every head is read whole or refused.
    private let readAhead: Int
    /// Bodies up to this size are never refused for memory (but counted): a login gets through while uploads hold it.
    private static let unmeteredBody = 64 * 1024
    /// Holdings are counted in whole pieces of this size, so that small exchanges never touch the budget's lock.
    private static let accountingGranule = 16 * 1024

    init(server: HTTPServer, listeners: [Int32], index: Int, poller: any Poller) {
        self.server = server
        self.index = index
        self.poller = poller
        encoder = ResponseEncoder(now: server.configuration.now)
        let limits = server.configuration.limits
        readAhead = limits.maxRequestLine + limits.maxHeaderBlock + 4
        self.listeners = listeners
        listening = !listeners.isEmpty
        for listener in self.listeners { poller.addListener(listener) }
        poller.add(wakePipe.read, readable: true, writable: false)
    }

    deinit {
        readBuffer.deallocate()
        Sys.close(wakePipe.read)
        Sys.close(wakePipe.write)
    }

    /// A later call can only bring the deadline forward (a second Ctrl-C).
    func requestStop(grace: Double) {
        stopLock.locked { stopDeadline = min(stopDeadline ?? .infinity, monotonicNow() + grace) }
        Sys.signalWakePipe(wakePipe.write)
    }

    private var deadlineForStop: Double? { stopLock.locked { stopDeadline } }

    func run() {
        while true {
            let now = monotonicNow()
            if let deadline = deadlineForStop {
                if listening {
                    for listener in listeners { poller.remove(listener) }
                    listening = false
                }
                for connection in Array(connections.values) where connection.isIdle { close(connection) }
                if connections.isEmpty || now >= deadline { break }
            }
            publishRoundEnd(now: now)
            poller.wait(timeoutMilliseconds: pollTimeout(now: now)) { event in
                publishRoundStart()
                if listeners.contains(event.fd) {
                    acceptConnections(on: event.fd)
                } else if event.fd == wakePipe.read {
                    Sys.drainWakePipe(wakePipe.read)
                    adoptHandedConnections()
                    finishReadyAnswers()
                } else if let connection = connections[event.fd] {
                    if event.writable { writable(connection) }
                    if event.readable, connections[event.fd] === connection { readable(connection) }
                }
            }
            publishRoundStart()
            takeTurns()
            drainLingering()
            let after = monotonicNow()
            runDueTimers(now: after)
            if let resume = acceptResumesAt, after >= resume, deadlineForStop == nil {
                acceptResumesAt = nil
                for listener in listeners { poller.addListener(listener) }
                listening = true
            }
            if after - lastSweep >= 1 {
                lastSweep = after
                sweep(now: after)
            }
        }
        adoptHandedConnections()  // handed over after the last wake: closed with the rest
        for connection in Array(connections.values) {
            reportCutOff(connection)
            close(connection)
        }
    }

    /// A connection still busy when the stop's deadline came: what it was doing, in the one log
    /// line and journal entry of its request (docs/admin.md#stopping).
    private func reportCutOff(_ connection: Connection) {
        guard connection.drainDeadline == nil else { return }  // answered; only lingering
        let now = monotonicNow()
        var (request, response, startedAt) = (Request(line: nil, peer: connection.peer), Response(status: 0), now)
        let note: String
        if let held = connection.heldAnswer {
            (request, response, startedAt) = (held.request, held.response, held.startedAt)
            note = held.isSending
                ? "cut off at shutdown: its answer was still being sent slowly by a slow_body fault"
                : "cut off at shutdown: its answer was still held back by --latency or a delay fault"
        } else if connection.parser.hasBufferedBytes || connection.parser.isReadingBody {
            request = Request(line: connection.parser.pendingRequestLine, peer: connection.peer)
            note = "cut off at shutdown: its \(connection.parser.isReadingBody ? "body" : "head") was still arriving"
            startedAt = connection.requestStartedAt ?? now
        } else if connection.output.count > 0 {
            note = "cut off at shutdown: \(connection.output.count) bytes of an answer were still unsent; the client read slowly"
        } else {
            return
        }
        cutOff += 1
        server.responder.didRespond(Exchange(request: request, response: response, durationMilliseconds: (now - startedAt) * 1000,
                                             responseBytes: 0, cutOff: true, note: note))
    }

    private func pollTimeout(now: Double) -> Int32 {
        var wait = 1.0
        if let first = timers.first { wait = min(wait, first.at - now) }
        if let resume = acceptResumesAt { wait = min(wait, resume - now) }
        if deadlineForStop != nil { wait = min(wait, 0.05) }
        if !turns.isEmpty { wait = 0 }
        return Int32(max(0, (wait * 1000).rounded(.up)))
    }

    // MARK: Accepting

    private func acceptConnections(on listener: Int32) {
        guard deadlineForStop == nil else { return }
        while true {
            guard server.reserveConnection() else {
                pauseAccepting()
                return
            }
            switch Sys.accept(listener) {
            case let .accepted(fd, peer):
                guard server.admit(peer) else {
                    Sys.close(fd)
                    server.releaseConnection()
                    continue
                }
                let loop = server.loop(forConnectionAcceptedBy: self, now: monotonicNow())
                loop === self ? serve(fd, peer) : loop.hand(fd, peer)
            case .wouldBlock, .failed:
                server.releaseConnection()
                return
            case .outOfDescriptors:
                server.releaseConnection()
                pauseAccepting()
                return
            }
        }
    }

    private func serve(_ fd: Int32, _ peer: PeerAddress) {
        connections[fd] = Connection(fd: fd, peer: peer, limits: server.configuration.limits, now: monotonicNow())
        poller.add(fd, readable: true, writable: false)
    }

    // MARK: Load

    /// Called when the poll returns (the first event, or after the wait without one): a round has begun.
    private func publishRoundStart() {
        guard roundStartedAtLocal == nil else { return }
        let now = monotonicNow()
        roundStartedAtLocal = now
        loadLock.locked { roundStartedAt = now }
    }

    /// Called before the poll waits: the round that ended, and the connections the loop has.
    private func publishRoundEnd(now: Double) {
        let started = roundStartedAtLocal
        roundStartedAtLocal = nil
        loadLock.lock()
        if let started { lastRoundSeconds = now - started }
        roundStartedAt = nil
        publishedConnections = connections.count
        loadLock.unlock()
    }

    /// About how long a new connection would wait here before its first request is read: the last
    /// round's length, or the current round's so far when that is longer (a loop inside a long
    /// round, or a slow handler); and how many connections the loop holds.
    func load(now: Double) -> (wait: Double, connections: Int) {
        loadLock.locked { (max(lastRoundSeconds, roundStartedAt.map { now - $0 } ?? 0), publishedConnections) }
    }

    /// A connection is on its way here: counted before the next round counts it again.
    func countArrival() {
        loadLock.locked { publishedConnections += 1 }
    }

    /// Called on the accepting loop's thread: queue the connection and wake this loop.
    private func hand(_ fd: Int32, _ peer: PeerAddress) {
        handedLock.locked { handed.append((fd, peer)) }
        Sys.signalWakePipe(wakePipe.write)
    }

    private func adoptHandedConnections() {
        var taken: [(fd: Int32, peer: PeerAddress)] = []
        handedLock.locked { swap(&taken, &handed) }
        for connection in taken { serve(connection.fd, connection.peer) }
    }

    /// Called on any thread: run `finish` on this loop's thread.
    private func post(_ finish: @escaping () -> Void) {
        handedLock.locked { readyAnswers.append(finish) }
        Sys.signalWakePipe(wakePipe.write)
    }

    private func finishReadyAnswers() {
        var taken: [() -> Void] = []
        handedLock.locked { swap(&taken, &readyAnswers) }
        for finish in taken { finish() }
    }

    /// Out of descriptors or at the cap: stop polling the listener briefly instead of spinning on it.
    private func pauseAccepting() {
        guard listening else { return }
        for listener in listeners { poller.remove(listener) }
        listening = false
        acceptResumesAt = monotonicNow() + 0.1
    }

    // MARK: Reading and dispatching

    private func readable(_ connection: Connection) {
        if connection.drainDeadline != nil {
            lingering.append(connection)
            return
        }
        var reads = 0
        // A body is read as fast as it comes; pipelined requests only a little ahead of their answers.
        while reads < 16 && (connection.parser.unparsedBytes < readAhead || connection.parser.bodyBytesAwaited > 0) {
            reads += 1
            let count = Sys.receive(connection.fd, into: readBuffer)
            if count == 0 { connection.peerClosed = true }
            if count < -1 { return close(connection) }
            guard count > 0 else { break }  // 0: the client closed; -1: nothing more for now
            // The first bytes of a connection: a TLS handshake is refused at once.
            if connection.bytesReceived == 0,
               refuseTLS(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), on: connection) { return }
            connection.lastActivity = monotonicNow()
            if !connection.parser.hasBufferedBytes { connection.requestStartedAt = connection.lastActivity }
            connection.parser.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
            connection.bytesReceived += count
            if count < readBuffer.count { break }
        }
        // Its requests already buffered wait for the turn it is queued for; once the round has
        // taken its slice, for a turn in a later round.
        guard !connection.waitsForTurn else { return }
        roundSliceSpent ? waitForTurn(connection) : process(connection)
    }

    /// An https client on this http port: close at once and say so, instead of letting it wait
    /// for the header timeout with nothing logged.
    private func refuseTLS(_ firstBytes: UnsafeRawBufferPointer, on connection: Connection) -> Bool {
        guard TLSClientHello.starts(firstBytes) else { return false }
        server.responder.didRefuseTLS(TLSAttempt(peer: connection.peer, at: Date(),
                                                 serverName: TLSClientHello.serverName(firstBytes), port: server.port))
        close(connection)
        return true
    }

    /// Lingering connections that sent more, drained after the round's requests for a slice of their own (the next
    /// poll reports the rest): drained in the poll's pass, 192 refused 16 MiB uploads took every round's slice
    /// and a new client waited 2–4 s for its turn.
    private func drainLingering() {
        guard !lingering.isEmpty else { return }
        let started = monotonicNow()
        for connection in lingering where connections[connection.fd] === connection {
            discardInput(connection)
            if monotonicNow() - started >= Self.roundSlice { break }
        }
        lingering.removeAll(keepingCapacity: true)
    }

    /// Drops what a lingering connection still sends; a bounded amount per event, like reading.
    private func discardInput(_ connection: Connection) {
        for _ in 0..<16 {
            let count = Sys.receive(connection.fd, into: readBuffer)
            if count > 0 { continue }
            if count == -1 { return }
            close(connection)
            return
        }
    }

    /// Requests one connection has answered in one turn. The rest of its pipelined requests wait
    /// until every other connection of the loop with something to do has had its turn, so that a
    /// client pipelining thousands of requests delays the others by a few dozen answers at most.
    private static let requestsPerTurn = 8

    /// Answers the complete requests in the buffer, in order, up to a turn's worth, then writes.
    private func process(_ connection: Connection) {
        var heldBack: Bool
        var served = 0
        repeat {
            heldBack = false
            parsing: while !connection.closeWhenFlushed && !connection.awaitingDelayedResponse {
                account(connection)
                guard mayQueueOutput(connection) else {
                    heldBack = true
                    break parsing
                }
                guard served < Self.requestsPerTurn else {
                    if connection.parser.hasBufferedBytes { waitForTurn(connection) }
                    break parsing
                }
                switch connection.parser.next(admittingBody: { admitBody(size: $0, more: $1, on: connection) }) {
                case .incomplete:
                    break parsing
                case .sendContinue:
                    connection.output.append(Self.continueLine)
                case let .failure(failure):
                    refuse(failure, on: connection)
                case let .request(head, body):
                    served += 1
                    dispatch(head, body, on: connection)
                case let .bodyRefused(head, failure):
                    refuseBody(of: head, failure, on: connection)
                }
            }
            flush(connection)
            // Requests held back at the high-water mark are already out of the socket, so no
            // readable event will bring them back: answer them as soon as writing made room.
        } while heldBack && connections[connection.fd] === connection && mayQueueOutput(connection)
    }

    private func waitForTurn(_ connection: Connection) {
        guard !connection.waitsForTurn else { return }
        connection.waitsForTurn = true
        turns.append(connection)
    }

    /// How long one round may answer requests before the loop polls again: 500 connections
    /// pipelining thousands of 16 KB answers made rounds of 4,000 answers (over a second), which a
    /// new client waited for. At least one turn is taken per round.
    private static let roundSlice = 0.02

    private var roundSliceSpent: Bool {
        guard let started = roundStartedAtLocal else { return false }
        return monotonicNow() - started >= Self.roundSlice
    }

    /// One more turn for each connection that used up its last one, in the order they did, until
    /// the round's slice is spent; the rest keep their places for the next round.
    private func takeTurns() {
        guard !turns.isEmpty else { return }
        let waiting = turns
        turns.removeAll(keepingCapacity: true)
        for (position, connection) in waiting.enumerated() where connections[connection.fd] === connection {
            connection.waitsForTurn = false
            process(connection)
            if roundSliceSpent {
                turns.insert(contentsOf: waiting[(position + 1)...], at: 0)
                return
            }
        }
    }

    /// More answers may be queued: none is waiting, or fewer than the high-water mark are and the
    /// memory budget has room, for everyone and for the client's address. Past it, a client that
    /// does not read its answers is stopped at one instead of a megabyte (and is not answered a
    /// 503 for each of its pipelined requests, which would fill the budget too).
    private func mayQueueOutput(_ connection: Connection) -> Bool {
        connection.output.count == 0
            || (connection.output.count < outputHighWater && server.memory.hasRoomForAnswer(to: connection.peer.host))
    }

    /// A large body must fit in the memory budget before its first byte is stored; what it
    /// reserves is this connection's until `account` counts the bytes themselves.
    private func admitBody(size: Int, more: Int, on connection: Connection) -> Bool {
        guard size > Self.unmeteredBody else { return true }
        guard server.memory.reserve(more, for: connection.peer.host) else { return false }
        connection.charged += more
        return true
    }

    /// Brings the connection's charge against the memory budget up to what it holds now
    /// (but its output when `countingOutput` is false).
    private func account(_ connection: Connection, countingOutput: Bool = true) {
        let held = connection.parser.heldBytes + (countingOutput ? connection.output.count : 0) + connection.bodyAtWorker
            + (connection.heldAnswer?.response.body.count ?? 0)
        let charge = held - held % Self.accountingGranule
        guard charge != connection.charged else { return }
        server.memory.adjust(by: charge - connection.charged, for: connection.peer.host)
        connection.charged = charge
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The HTTP layer's own plain-text answer to a request it cannot read; the log line and the
    /// journal get the parser's reason.
    private func refuse(_ failure: ParseFailure, on connection: Connection) {
        let started = connection.requestStartedAt ?? monotonicNow()
        let response = Response.text(failure.status, failure.message + "\n")
        let bytes = write(response, isHead: false, keepAlive: false, versionMinor: 1, to: connection)
        report(Request(line: failure.requestLine, peer: connection.peer), response, startedAt: started, responseBytes: bytes,
               note: failure.reason)
    }

    /// Bodies from this size on are answered on a worker thread (`HTTPServer.workers`): decoding
    /// 16 MiB of `%u00e9` escapes took 0.75 s, which no other client of the loop should wait for.
    static let costlyBody = 256 << 10
    /// An answer that took the loop this long makes its kind of request (`costKey`) costly: it
    /// held every other client of the loop that long (60 slow readers of a 20 MB list: seconds).
    static let costlyAnswerSeconds = 0.02
    /// `costlyTargets` is emptied when it reaches this many (paths with ids are many).
    private static let costlyTargetsKept = 1024

    /// The method and the path without its query: what makes an answer costly is mostly which list
    /// it is. A new string: made only once some request was costly, or this one is.
    private static func costKey(_ head: RequestHead) -> String {
        let path = head.target.firstIndex(of: "?").map { head.target[..<$0] } ?? head.target[...]
        return head.method + " " + path
    }

    private func dispatch(_ head: RequestHead, _ body: [UInt8], on connection: Connection) {
        guard server.memory.hasRoomForAnswer(to: connection.peer.host) else { return refuseForMemory(head, on: connection) }
        let started = monotonicNow()
        let request = Request(head, body: body, peer: connection.peer)
        connection.requestStartedAt = connection.parser.hasBufferedBytes ? started : nil
        connection.hasServedRequest = true
        guard let parseRoom = reserveParseRoom(forBody: body.count, on: connection) else {
            refuseForMemory(head, on: connection)
            return
        }
        if body.count >= Self.costlyBody || !costlyTargets.isEmpty && costlyTargets.contains(Self.costKey(head)) {
            let work = WorkerAnswer(connection: connection, request: request, head: head, startedAt: started)
            answerOnWorker(work, parseRoom: parseRoom)
            return
        }
        let response = server.responder.respond(to: request)
        server.memory.adjust(by: -parseRoom, for: connection.peer.host)
        if monotonicNow() - started >= Self.costlyAnswerSeconds {
            if costlyTargets.count >= Self.costlyTargetsKept { costlyTargets.removeAll() }
            costlyTargets.insert(Self.costKey(head))
        }
        answer(response, to: request, head, startedAt: started, on: connection)
    }

    /// Counts the room parsing a body takes while it is answered: decoded form values, JSON strings and
    /// a multipart's parts are at most the body's size (forms are cut at 1,000 pairs, JSON at 100,000
    /// values; measured: a 16 MiB form or JSON body raised the peak by 32 MiB). Over `unmeteredBody` only
    /// if it fits (nil: it does not, and it is not parsed); a smaller one always, as its bytes were.
    private func reserveParseRoom(forBody size: Int, on connection: Connection) -> Int? {
        guard size > Self.unmeteredBody else {
            server.memory.adjust(by: size, for: connection.peer.host)
            return size
        }
        return server.memory.reserve(size, for: connection.peer.host) ? size : nil
    }

    /// Builds the answer on a worker thread; later pipelined requests wait, as behind a delayed answer. The body
    /// and its parse room stay counted until it is back; the budget is checked again as each answer is built.
    private func answerOnWorker(_ work: WorkerAnswer, parseRoom: Int) {
        let connection = work.connection
        connection.bodyAtWorker = work.request.body.count + parseRoom
        connection.charged += parseRoom
        account(connection)
        connection.awaitingDelayedResponse = true
        let responder = server.responder
        let memory = server.memory
        let host = connection.peer.host
        server.workers.addOperation { [self] in
            var done = work
            if memory.hasRoomForAnswer(to: host) {
                let began = monotonicNow()
                done.response = responder.respond(to: work.request)
                done.seconds = monotonicNow() - began
                done.charged = done.response.body.count
                memory.adjust(by: done.charged, for: host)
            }
            let finished = done
            post { [self] in deliver(finished) }
        }
    }

    /// An answer a worker thread finished, sent as if the loop had made it.
    private func deliver(_ work: WorkerAnswer) {
        let connection = work.connection
        if (work.seconds ?? .infinity) < Self.costlyAnswerSeconds { costlyTargets.remove(Self.costKey(work.head)) }
        guard connections[connection.fd] === connection else {
            server.memory.adjust(by: -work.charged, for: connection.peer.host)
            // The client left meanwhile: the request was still served (a write is done), and logged.
            if work.seconds != nil { report(work.request, work.response, startedAt: work.startedAt, responseBytes: 0) }
            return
        }
        connection.awaitingDelayedResponse = false
        connection.bodyAtWorker = 0
        connection.charged += work.charged
        if work.seconds == nil {
            refuseForMemory(work.head, on: connection)
        } else {
            answer(work.response, to: work.request, work.head, startedAt: work.startedAt, on: connection)
        }
        process(connection)
    }

    /// Sends the responder's answer now, after its delay, or once it is ready when it is pending.
    private func answer(_ response: Response, to request: Request, _ head: RequestHead, startedAt started: Double,
                        on connection: Connection) {
        let keepAlive = head.keepAlive && !connection.peerClosed
        guard response.pending != nil || response.delay > 0 else {
            return finish(request, response, head, keepAlive: keepAlive, startedAt: started, on: connection)
        }
        connection.awaitingDelayedResponse = true
        connection.heldAnswer = (request, response, started, isSending: false)
        if let pending = response.pending {
            pending.whenComplete { [unowned self] finish in
                post { [unowned self] in
                    // Closed meanwhile (a reset, a stop): nothing to send.
                    guard connections[connection.fd] === connection else { return }
                    connection.awaitingDelayedResponse = false
                    connection.heldAnswer = nil
                    var held = response
                    held.pending = nil
                    answer(finish(held), to: request, head, startedAt: started, on: connection)
                    process(connection)
                }
            }
        } else {
            schedule(at: started + response.delay, for: connection) { [unowned self] in
                connection.awaitingDelayedResponse = false
                connection.heldAnswer = nil
                finish(request, response, head, keepAlive: keepAlive, startedAt: started, on: connection)
                process(connection)
            }
        }
    }

    /// A body over the size limit or the memory budget is never read: the responder may answer in
    /// the route's own format, then the connection closes.
    private func refuseBody(of head: RequestHead, _ failure: ParseFailure, on connection: Connection) {
        let started = monotonicNow()
        let request = Request(head, peer: connection.peer)
        let (response, fromResponder) = refusal(of: request, status: failure.status, reason: failure.message)
        finish(request, response, head, keepAlive: false, startedAt: started, on: connection,
               note: fromResponder ? nil : failure.reason)
    }

    /// No answer is built while the budget, or the share of the client's address, is held by bodies
    /// and answers its readers have not taken yet (a 20 MB tweet list for 60 clients that never
    /// read): the API's own 503 instead, with `Retry-After`. The connection stays open.
    private func refuseForMemory(_ head: RequestHead, on connection: Connection) {
        let started = monotonicNow()
        let request = Request(head, peer: connection.peer)
        let response = refusal(of: request, status: 503, reason: "Answers waiting for slow readers fill the memory budget.").response
        let note = "no answer built: answers and bodies held for clients of \(connection.peer.host) (or of everyone) "
            + "fill their share of --memory-budget; their clients read too slowly or not at all"
        connection.requestStartedAt = connection.parser.hasBufferedBytes ? started : nil
        finish(request, response, head, keepAlive: head.keepAlive && !connection.peerClosed, startedAt: started, on: connection,
               note: note)
    }

    /// The responder's refusal in the route's own format (`fromResponder`), or plain text; a 503 gets
    /// `Retry-After` 2: bodies in memory are read at 1 KB/s at least, or dropped, so the budget frees
    /// up quickly unless it is held by fast uploads, which also end soon.
    private func refusal(of request: Request, status: Int, reason: String) -> (response: Response, fromResponder: Bool) {
        let refusal = server.responder.refusal(of: request, status: status, reason: reason)
        var response = refusal ?? Response.text(status, reason + "\n")
        if status == 503 && response.headers["Retry-After"] == nil { response.headers.set("Retry-After", "2") }
        return (response, refusal != nil)
    }

    /// Writes the answer and tells the responder; a method rather than a closure so that
    /// answers without delay allocate no capture box.
    private func finish(_ request: Request, _ response: Response, _ head: RequestHead, keepAlive: Bool,
                        startedAt started: Double, on connection: Connection, note: String? = nil) {
        let bytes: Int
        switch response.connectionFault {
        case .reset?:
            // Told first: whoever saw the reset may ask the journal at once.
            report(request, response, startedAt: started, responseBytes: 0, note: note)
            connection.closeWhenFlushed = true
            Sys.resetOnClose(connection.fd)
            close(connection)
            return
        case .close?:
            // Answers to earlier pipelined requests still go out; this one never does.
            bytes = 0
            connection.closeWhenFlushed = true
        default:
            bytes = write(response, isHead: head.method == "HEAD", keepAlive: keepAlive,
                          versionMinor: head.versionMinor, to: connection)
            // A slow body has begun.
            if connection.awaitingDelayedResponse {
                connection.heldAnswer = (request, response, started, isSending: true)
            }
        }
        report(request, response, startedAt: started, responseBytes: bytes, note: note)
    }

    private func report(_ request: Request, _ response: Response, startedAt started: Double, responseBytes: Int,
                        note: String? = nil) {
        answered += 1
        let duration = (monotonicNow() - started) * 1000
        server.responder.didRespond(Exchange(request: request, response: response,
                                             durationMilliseconds: duration, responseBytes: responseBytes, note: note))
    }

    // MARK: Writing

    /// The socket takes more output: write it, then answer requests held back at the high-water mark.
    private func writable(_ connection: Connection) {
        flush(connection)
        guard connections[connection.fd] === connection, connection.parser.hasBufferedBytes,
              mayQueueOutput(connection), !connection.awaitingDelayedResponse,
              !connection.closeWhenFlushed, !connection.waitsForTurn else { return }
        process(connection)
    }

    /// Queues a response on the connection's output; returns its size in bytes.
    @discardableResult
    private func write(_ response: Response, isHead: Bool, keepAlive: Bool, versionMinor: Int,
                       to connection: Connection) -> Int {
        let keepAlive = keepAlive && server.isStopping == false
        let encoded = encoder.encode(response, isHead: isHead, keepAlive: keepAlive, versionMinor: versionMinor)
        if !keepAlive { connection.closeWhenFlushed = true }
        if let fault = response.connectionFault {
            let whole = encoded.head + (encoded.separateBody ?? [])
            return writeBroken(head: Array(whole[..<encoded.headLength]), body: Array(whole[encoded.headLength...]),
                               fault, to: connection)
        }
        connection.output.append(encoded.head)
        if let body = encoded.separateBody { connection.output.append(body) }
        return encoded.count
    }

    /// A truncated or dribbled answer: the head goes out as usual, the body does not.
    private func writeBroken(head: [UInt8], body: [UInt8], _ fault: ConnectionFault, to connection: Connection) -> Int {
        switch fault {
        case .truncate:
            let sent = body.isEmpty ? Array(head.prefix(head.count / 2)) : head + body.prefix(body.count / 2)
            connection.output.append(sent)
            connection.closeWhenFlushed = true
            return sent.count
        case let .slowBody(bytesPerSecond):
            connection.output.append(head)
            if !body.isEmpty { dribble(body[...], bytesPerSecond: max(1, bytesPerSecond), on: connection) }
            return head.count + body.count
        case .reset, .close:
            preconditionFailure("answered in finish")
        }
    }

    /// Sends a tenth of a second's worth of body per timer tick; the connection counts as awaiting
    /// a delayed answer meanwhile, so pipelined requests wait and no idle timeout applies.
    private func dribble(_ rest: ArraySlice<UInt8>, bytesPerSecond: Int, on connection: Connection) {
        connection.awaitingDelayedResponse = true
        let chunk = max(1, bytesPerSecond / 10)
        schedule(at: monotonicNow() + Double(chunk) / Double(bytesPerSecond), for: connection) { [unowned self] in
            connection.output.append(Array(rest.prefix(chunk)))
            let remaining = rest.dropFirst(chunk)
            if remaining.isEmpty {
                connection.awaitingDelayedResponse = false
                connection.heldAnswer = nil
                process(connection)
            } else {
                dribble(remaining, bytesPerSecond: bytesPerSecond, on: connection)
                flush(connection)
            }
        }
    }

    private func flush(_ connection: Connection) {
        // A reset fault closes mid-dispatch; its descriptor may already belong to someone else.
        guard connections[connection.fd] === connection else { return }
        // Uncharged before the write: once the client has read it, its next request (perhaps on
        // another loop) must not find it counted. What the socket did not take is charged after.
        account(connection, countingOutput: false)
        let result = connection.output.write(to: connection.fd)
        guard result != .failed else { return close(connection) }
        connection.lastActivity = monotonicNow()
        if result == .drained && !connection.awaitingDelayedResponse {
            if connection.closeWhenFlushed { return closeLingering(connection) }
            if connection.peerClosed { return close(connection) }
        }
        account(connection)
        let wantsRead = !connection.peerClosed && !connection.awaitingDelayedResponse && !connection.closeWhenFlushed
            && mayQueueOutput(connection)
        updateInterest(connection, readable: wantsRead, writable: connection.output.count > 0)
    }

    private func updateInterest(_ connection: Connection, readable: Bool, writable: Bool) {
        guard connection.interest != (readable, writable) else { return }
        connection.interest = (readable, writable)
        poller.modify(connection.fd, readable: readable, writable: writable)
    }

    /// Closes the way nginx and Apache do: shut the write side (the client reads the answer, then
    /// end of stream), read and drop what the client still sends, close when it closes or after
    /// `lingerSeconds`. A plain close with unread input sends a reset, which destroys the part
    /// of the answer the client has not read yet.
    private func closeLingering(_ connection: Connection) {
        guard !connection.peerClosed else { return close(connection) }
        guard connection.drainDeadline == nil else { return }
        connection.parser.discardInput()
        account(connection)
        Sys.shutdownWrite(connection.fd)
        connection.drainDeadline = monotonicNow() + Self.lingerSeconds
        updateInterest(connection, readable: true, writable: false)
    }

    private static let lingerSeconds = 2.0

    private func close(_ connection: Connection) {
        guard connections[connection.fd] === connection else { return }
        connections[connection.fd] = nil
        server.memory.adjust(by: -connection.charged, for: connection.peer.host)
        connection.charged = 0
        poller.remove(connection.fd)
        Sys.close(connection.fd)
        server.dismiss(connection.peer)
        server.releaseConnection()
    }

    // MARK: Timers and deadlines

    private func schedule(at time: Double, for connection: Connection, _ action: @escaping () -> Void) {
        let index = timers.firstIndex { $0.at > time } ?? timers.count
        timers.insert((time, connection, action), at: index)
    }

    private func runDueTimers(now: Double) {
        while let first = timers.first, first.at <= now {
            timers.removeFirst()
            if connections[first.connection.fd] === first.connection { first.action() }
        }
    }

    /// Drops slow and idle clients: the head must arrive in time, bodies must progress,
    /// idle keep-alive connections expire, and drained connections close.
    private func sweep(now: Double) {
        let configuration = server.configuration
        for connection in Array(connections.values) {
            if let deadline = connection.drainDeadline {
                if now >= deadline { close(connection) }
                continue
            }
            if connection.awaitingDelayedResponse { continue }
            if connection.output.count > 0 {
                if now - connection.lastActivity > configuration.idleTimeout { close(connection) }
                continue
            }
            if connection.parser.isReadingBody {
                if isTooSlow(connection, now: now, configuration) { closeLingering(connection) }
                continue
            }
            connection.bodyStarted = nil
            // Bytes may wait in the socket while a long round kept the loop away: read them before
            // judging the client slow or silent.
            if !connection.hasServedRequest || connection.parser.hasBufferedBytes {
                readable(connection)
                guard connections[connection.fd] === connection else { continue }
            }
            if connection.parser.hasBufferedBytes, let started = connection.requestStartedAt {
                if now - started > configuration.headerTimeout {
                    refuse(ParseFailure(status: 408, message: "Request head not received in time.",
                                        reason: "the request head did not arrive within \(Int(configuration.headerTimeout)) s of its first byte",
                                        requestLine: connection.parser.pendingRequestLine), on: connection)
                    flush(connection)
                }
            } else if !connection.hasServedRequest && now - connection.acceptedAt > configuration.headerTimeout {
                // Connected and silent: it holds a slot no longer than a slow head may.
                closeLingering(connection)
            } else if now - connection.lastActivity > configuration.idleTimeout {
                closeLingering(connection)
            }
        }
    }

    /// A body stalls (no byte for `bodyTimeout`), or trickles: below the minimum rate on average
    /// since its start, once the grace period is over. A trickled byte does not restart the clock.
    private func isTooSlow(_ connection: Connection, now: Double, _ configuration: ServerConfiguration) -> Bool {
        guard let started = connection.bodyStarted else {
            connection.bodyStarted = (now, connection.bytesReceived)
            return false
        }
        if now - connection.lastActivity > configuration.bodyTimeout { return true }
        let elapsed = now - started.at
        let rate = Double(connection.bytesReceived - started.bytes) / elapsed
        return elapsed > configuration.slowBodyGrace && rate < configuration.minBodyBytesPerSecond
    }
}
