import Foundation

/// The memory all connections together may hold in request bodies, buffered input, answers held
/// back or queued (`ServerConfiguration.memoryBudget`), shared by the event loops. Past it, a large
/// body is refused before it is read, no answer is built, and a client with answers waiting is read
/// no further, so no number of clients can make the process run out of memory
/// (docs/reliability.md#memory-budget).
public final class MemoryBudget: @unchecked Sendable {
    public let limit: Int
    /// What the connections of one peer address may hold together when a body asks for more, so
    /// that slow uploads from one address never keep everyone else's bodies out.
    let limitPerAddress: Int
    private let lock = NSLock()
    private var used = 0
    private var usedByAddress: [String: Int] = [:]
    /// What clients stored (their accepted texts), part of `used`; at most half the limit.
    private var stored = 0

    public init(limit: Int, limitPerAddress: Int) {
        self.limit = limit
        self.limitPerAddress = limitPerAddress
    }

    /// Counts `bytes` more for `address` if they fit under both limits.
    func reserve(_ bytes: Int, for address: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let held = usedByAddress[address, default: 0]
        guard used + bytes <= limit && held + bytes <= limitPerAddress else { return false }
        used += bytes
        usedByAddress[address] = held + bytes
        return true
    }

    /// Counts what a connection of `address` holds now against what it held (negative when it
    /// shrank), fitting or not: the bytes are already there. Zero (a GET's parse room) takes no lock.
    func adjust(by delta: Int, for address: String) {
        guard delta != 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        used += delta
        let held = usedByAddress[address, default: 0] + delta
        usedByAddress[address] = held > 0 ? held : nil
    }

    /// Whether `address` may have another answer built: the budget is not used up, and its connections hold
    /// less than their share (not looked up while all used is below it). An answer's size is known only once
    /// it is built, so the one built last may pass the mark by its own size.
    func hasRoomForAnswer(to address: String) -> Bool {
        lock.locked { used < limit && (used < limitPerAddress || usedByAddress[address, default: 0] < limitPerAddress) }
    }

    /// Counts `bytes` of client text about to be stored, if stored text stays within half the
    /// budget and the whole within the budget: what clients store leaves room for requests.
    public func reserveStored(_ bytes: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard stored + bytes <= limit / 2 && used + bytes <= limit else { return false }
        stored += bytes
        used += bytes
        return true
    }

    /// Stored text that is gone (a reset, a load).
    public func releaseStored(_ bytes: Int) {
        lock.locked {
            stored -= bytes
            used -= bytes
        }
    }

    var inUse: Int { lock.locked { used } }
}
