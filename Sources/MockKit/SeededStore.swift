import Foundation

/// An API's live state and the seed it returns to, behind one lock: every read and change of the
/// state goes through `withLock`, so concurrent requests on different loop threads see whole
/// changes only, and a reset or a state load never interleaves with a request.
public final class SeededStore<Seed, State>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    private var seedValue: Seed
    @usableFromInline var state: State
    /// Counts changes: every `withLock`, reset and load; `read` leaves it alone.
    @usableFromInline var version = 0
    private let fresh: (Seed) -> State

    /// `fresh` makes the live state from the seed (at start, on reset and on load).
    public init(seed: Seed, fresh: @escaping (Seed) -> State) {
        seedValue = seed
        state = fresh(seed)
        self.fresh = fresh
    }

    /// Reads and may change the state.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        version &+= 1
        return try body(&state)
    }

    /// Reads the state without changing it; `version` is the same until something may have changed
    /// it, so an answer encoded from this state can be cached under it.
    @inlinable
    public func read<Result, Failure: Error>(_ body: (State, _ version: Int) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(state, version)
    }

    /// The document the state was last filled from.
    public var seed: Seed {
        lock.lock()
        defer { lock.unlock() }
        return seedValue
    }

    /// Back to the seed.
    public func reset() {
        lock.lock()
        state = fresh(seedValue)
        version &+= 1
        lock.unlock()
    }

    /// A new seed (`PUT /_mock/state`, `--state`). The live state becomes a fresh one from it, or,
    /// when `update` is given, the current state changed by it (for state that a load keeps).
    public func replaceSeed(_ seed: Seed, update: ((inout State) -> Void)? = nil) {
        lock.lock()
        seedValue = seed
        if let update { update(&state) } else { state = fresh(seed) }
        version &+= 1
        lock.unlock()
    }
}

extension SeededStore where Seed == State {
    public convenience init(_ seed: State) {
        self.init(seed: seed, fresh: { $0 })
    }
}
