import Foundation

/// The memory all connections together may hold in request bodies, buffered input and queued
/// output (`ServerConfiguration.memoryBudget`), shared by the event loops. Past it, a large body
/// is refused before it is read and a client with answers waiting is read no further, so no
/// number of clients can make the process run out of memory (docs/reliability.md#memory-budget).
final class MemoryBudget: @unchecked Sendable {
    let limit: Int
    private let lock = NSLock()
    private var used = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts `bytes` more if they fit under the limit.
    func reserve(_ bytes: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard used + bytes <= limit else { return false }
        used += bytes
        return true
    }

    /// Counts what a connection holds now against what it held (negative when it shrank), fitting or not:
    /// the bytes are already there.
    func adjust(by delta: Int) {
        lock.lock()
        used += delta
        lock.unlock()
    }

    var isExhausted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return used >= limit
    }

    var inUse: Int {
        lock.lock()
        defer { lock.unlock() }
        return used
    }
}
