import Foundation

extension NSLocking {
    /// `body` run with the lock held (Foundation's `withLock` needs macOS 14); inlined into the event loops.
    @inlinable
    public func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
