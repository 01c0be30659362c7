import MockKit

/// Users by email, whatever its letter case, in a `TaggedRowIndex` of their positions in the users
/// table. Replaces a `[ExactText: Int]`, which hashed every seeded email twice over as it grew
/// (SipHash), compared candidates through reference-counted strings and took 24 bytes a slot.
///
/// The key of an email is its `lowercased()` form, compared byte for byte; an address without
/// upper case letters or non-ASCII bytes, as nearly all are, is its own key, hashed by `KeyHash`.
struct EmailIndex {
    private var table: TaggedRowIndex

    init(capacity: Int = 0) {
        table = TaggedRowIndex(capacity: capacity)
    }

    /// The position filed under `key` (an email's key, `withKey`) for which `matches` is true: `matches`
    /// gets a position and says whether the user there has this key (a slot holds only part of the hash).
    func position(of key: UnsafeBufferPointer<UInt8>, matches: (Int) -> Bool) -> Int? {
        table.row(hash: KeyHash.of(key), where: matches)
    }

    /// Files `position` under `key`, unless a position for which `matches` is true is filed there
    /// already: that one is returned and nothing changes.
    mutating func insert(_ key: UnsafeBufferPointer<UInt8>, at position: Int, matches: (Int) -> Bool) -> Int? {
        table.insert(position, hash: KeyHash.of(key), where: matches)
    }

    /// Calls `body` with the UTF-8 of the key of the email whose UTF-8 is `email`: its `lowercased()`
    /// form, the email itself when that changes nothing (no upper case ASCII, no byte past ASCII).
    static func withKey<Result>(_ email: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        guard email.contains(where: { $0 >= 0x41 && ($0 <= 0x5A || $0 >= 0x80) }) else { return body(email) }
        var key = String(decoding: email, as: UTF8.self).lowercased()
        return key.withUTF8(body)
    }
}
