import Foundation

/// Encoded answers kept until the state they came from changes (its `SeededStore` version), so
/// a list that a whole class polls is encoded once per change instead of once per request.
public final class AnswerCache<Kind: Hashable>: @unchecked Sendable {
    @usableFromInline let entries = Locked<[Kind: (version: Int, bytes: [UInt8])]>([:])

    public init() {}

    /// The bytes cached for `kind` at this version, or `encode()`'s, which are kept.
    @inlinable
    public func answer(for version: Int, kind: Kind, encode: () -> [UInt8]) -> [UInt8] {
        entries.withLock { entries in
            if let entry = entries[kind], entry.version == version { return entry.bytes }
            let bytes = encode()
            entries[kind] = (version, bytes)
            return bytes
        }
    }
}
