import MockKit

/// Users by email, whatever its letter case: an open-addressing table of 8-byte slots, each a
/// user's position in the users table and 32 bits of its email key's hash. Replaces a
/// `[ExactText: Int]`, which hashed every seeded email twice over as it grew (SipHash), compared
/// candidates through reference-counted strings and took 24 bytes a slot.
///
/// The key of an email is its `lowercased()` form, compared byte for byte; an address without
/// upper case letters or non-ASCII bytes, as nearly all are, is its own key, hashed by `KeyHash`.
struct EmailIndex {
    /// 0: empty; otherwise the key's hash tag in the high 32 bits, position + 1 (never 0) in the low ones.
    private var slots: [UInt64]
    private var count = 0
    /// `slots.count` is `1 << bits`.
    private var bits: Int

    init(capacity: Int = 0) {
        bits = 4
        while 1 << bits < capacity + capacity / 3 + 1 { bits += 1 }
        slots = Array(repeating: 0, count: 1 << bits)
    }

    /// The position filed under `key` (an email's key, `withKey`) for which `matches` is true: `matches`
    /// gets a position and says whether the user there has this key (a slot holds only part of the hash).
    func position(of key: UnsafeBufferPointer<UInt8>, matches: (Int) -> Bool) -> Int? {
        position(tag: KeyHash.of(key), matches: matches)
    }

    /// Files `position` under `key`, unless a position for which `matches` is true is filed there
    /// already: that one is returned and nothing changes.
    mutating func insert(_ key: UnsafeBufferPointer<UInt8>, at position: Int, matches: (Int) -> Bool) -> Int? {
        precondition(position < UInt32.max, "EmailIndex positions are 32-bit")
        let tag = KeyHash.of(key)
        if let existing = self.position(tag: tag, matches: matches) { return existing }
        if (count + 1) * 4 > slots.count * 3 { grow() }
        place(UInt64(tag) << 32 | UInt64(position + 1))
        count += 1
        return nil
    }

    /// Calls `body` with the UTF-8 of the key of the email whose UTF-8 is `email`: its `lowercased()`
    /// form, the email itself when that changes nothing (no upper case ASCII, no byte past ASCII).
    static func withKey<Result>(_ email: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        guard email.contains(where: { $0 >= 0x41 && ($0 <= 0x5A || $0 >= 0x80) }) else { return body(email) }
        var key = String(decoding: email, as: UTF8.self).lowercased()
        return key.withUTF8(body)
    }

    private func position(tag: UInt32, matches: (Int) -> Bool) -> Int? {
        let mask = slots.count - 1
        var index = Int(tag >> (32 - bits))
        while true {
            let slot = slots[index]
            if slot == 0 { return nil }
            if UInt32(slot >> 32) == tag, matches(Int(slot & 0xFFFF_FFFF) - 1) { return Int(slot & 0xFFFF_FFFF) - 1 }
            index = (index + 1) & mask
        }
    }

    private mutating func place(_ slot: UInt64) {
        let mask = slots.count - 1
        var index = Int(UInt32(slot >> 32) >> (32 - bits))
        while slots[index] != 0 { index = (index + 1) & mask }
        slots[index] = slot
    }

    /// Twice the slots; each filed position moves by its tag, so no key is hashed again.
    private mutating func grow() {
        let old = slots
        bits += 1
        slots = Array(repeating: 0, count: 1 << bits)
        for slot in old where slot != 0 { place(slot) }
    }
}
