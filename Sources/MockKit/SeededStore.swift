import Foundation
import MockSupport

/// An API's live state and the seed it returns to, behind one lock: every read and change of the
/// state goes through `withLock`, so concurrent requests on different loop threads see whole
/// changes only, and a reset or a state load never interleaves with a request.
///
/// With `--state`, what a change touched (`LoggedState.takeChanges`) becomes one record of the log,
/// written under this lock so each API's records are in the order of its changes.
public final class SeededStore<Seed, State: LoggedState>: @unchecked Sendable {
    /// Recursive: the log, holding every store, exports and reloads through the usual methods.
    @usableFromInline let lock = NSRecursiveLock()
    private var seedValue: Seed
    @usableFromInline var state: State
    /// Counts changes: every `withLock`, reset and load; `read` leaves it alone.
    @usableFromInline var version = 0
    private let fresh: (Seed) -> State
    /// Set by `attach`: the log, this API's name in it, and how a whole state is written.
    private var logging: (log: StateLog, api: String, document: (State) -> [UInt8])?
    /// The log record of the last change in memory (0: none since the state was loaded).
    @usableFromInline var lastRecord = 0
    /// Set by a reset or a load: the next record is the whole state.
    private var wholeStateChanged = false

    /// `fresh` makes the live state from the seed (at start and on reset).
    public init(seed: Seed, fresh: @escaping (Seed) -> State) {
        seedValue = seed
        state = fresh(seed)
        _ = state.takeChanges()
        self.fresh = fresh
    }

    /// Reads and may change the state.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer {
            logChanges()
            lock.unlock()
        }
        version &+= 1
        return try body(&state)
    }

    /// Reads the state without changing it; `version` is the same until something may have changed
    /// it, so an answer encoded from this state can be cached under it.
    @inlinable
    public func read<Result, Failure: Error>(_ body: (State, _ version: Int) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        if lastRecord > 0 { noteRead() }
        return try body(state, version)
    }

    /// The seed document, which reset returns to.
    public var seed: Seed { holding { seedValue } }

    /// The tokens the last `--watch` reload ended (their users left the seed), and when.
    private var endedByReload: (tokens: Set<String>, at: Date) = ([], Date.distantPast)

    /// When the last reload ended `token`; nil when it did not.
    public func endedByReload(_ token: String) -> TokenEndedByReload? {
        holding { endedByReload.tokens.contains(token) ? TokenEndedByReload(at: endedByReload.at) : nil }
    }

    public func reset() {
        replace { $0 = fresh(seedValue) }
    }

    /// A new live state from a loaded document (`PUT /_mock/state`, `--state`): a fresh one from
    /// it, or, when `update` is given, the current state changed by it. The seed stays.
    public func load(_ loaded: Seed, update: ((inout State) -> Void)?) {
        replace { state in
            if let update { update(&state) } else { state = fresh(loaded) }
        }
    }

    private func replace(_ update: (inout State) -> Void) {
        withLock { state in
            update(&state)
            wholeStateChanged = true
        }
    }

    /// From now on every change is a record of `log`; a whole state is written as `document` makes it.
    public func attach(to log: StateLog, as api: String, document: @escaping (State) -> [UInt8]) {
        holding { logging = (log, api, document) }
    }

    /// Runs `body` with the store locked: no request reads or changes it meanwhile.
    public func holding<Result>(_ body: () throws -> Result) rethrows -> Result {
        try lock.locked(body)
    }

    /// The request read changes that may not be stored yet: its answer waits for them.
    @usableFromInline
    func noteRead() {
        RequestWrites.current.sawRecord(lastRecord)
    }

    /// Turns what the state reports as changed into a log record; a call that changed nothing
    /// read every change so far.
    @usableFromInline
    func logChanges() {
        var changes = state.takeChanges()
        if wholeStateChanged {
            wholeStateChanged = false
            changes.touchEverything()
        }
        guard let logging else { return }
        let writes = RequestWrites.current
        guard !changes.isEmpty else {
            if lastRecord > 0 { writes.sawRecord(lastRecord) }
            return
        }
        if writes.replaying {
            // Loaded from the file: nothing in memory is unstored any more.
            lastRecord = 0
            return
        }
        let record = changes.wholeState
            ? ChangeRecord.encode(wholeState: logging.document(state), of: logging.api)
            : ChangeRecord.encode(changes, of: logging.api, in: state)
        lastRecord = logging.log.append(record, of: logging.api)
        writes.wrote = lastRecord
    }
}

extension SeededStore where Seed == State {
    public convenience init(_ seed: State) {
        self.init(seed: seed, fresh: { $0 })
    }
}

extension SeededStore where State: TokenCarrying {
    /// A new seed (its file changed, `--watch`) and the live state fresh from it, with the live
    /// tokens of the users it still has; the 401 of the others names this reload, made at `date`.
    func reseed(_ seed: Seed, at date: Date) -> KeptTokens {
        holding {
            seedValue = seed
            var tokens = KeptTokens()
            replace { state in
                let old = state
                state = fresh(seed)
                // A token the fresh state has already (its seed gives it) is kept too.
                let live = Set(state.liveTokenOwners.map(\.token))
                for (token, user) in old.liveTokenOwners {
                    if live.contains(token) || state.keepLiveToken(token, of: user, from: old) {
                        tokens.kept += 1
                    } else {
                        tokens.ended.insert(token)
                    }
                }
            }
            endedByReload = (tokens.ended, date)
            return tokens
        }
    }
}
