/// Rows found by a key the rows themselves hold: an open-addressing table (linear probing) of
/// 8-byte slots, each 32 bits of the key's hash (`KeyHash`) and the row's place + 1 (0 is an empty
/// slot), where a `Dictionary` would keep a second copy of every key and hash it with SipHash.
/// `matches` says whether the row at a place holds the key looked for (the hash bits alone may be
/// shared). At most three quarters full, and growing places each slot again by the bits it keeps,
/// so no key is hashed again.
public struct TaggedRowIndex {
    @usableFromInline var slots: [UInt64]
    @usableFromInline var filled = 0
    /// `slots.count` is `1 << bits`; a slot's probe starts at the top `bits` of its hash.
    @usableFromInline var bits = 4

    public var count: Int { filled }

    public init(capacity: Int = 0) {
        while 1 << bits < capacity + capacity / 3 + 1 { bits += 1 }
        slots = [UInt64](repeating: 0, count: 1 << bits)
    }

    /// The place of the row filed under `hash` for which `matches` is true.
    @inlinable
    public func row(hash: UInt32, where matches: (Int) -> Bool) -> Int? {
        find(hash: hash, where: matches).row
    }

    /// Files `row` under `hash`, unless a row for which `matches` is true is filed there already:
    /// then that row's place, and nothing changes.
    @inlinable
    public mutating func insert(_ row: Int, hash: UInt32, where matches: (Int) -> Bool) -> Int? {
        precondition(row < Int(UInt32.max), "TaggedRowIndex holds fewer than 2^32 - 1 rows")
        let (slot, earlier) = find(hash: hash, where: matches)
        if let earlier { return earlier }
        slots[slot] = UInt64(hash) << 32 | UInt64(row + 1)
        filled += 1
        if filled * 4 > slots.count * 3 { reserveCapacity(filled) }
        return nil
    }

    /// Room for `count` rows without growing: twice the slots until they fit.
    public mutating func reserveCapacity(_ count: Int) {
        let old = bits
        while (1 << bits) * 3 < count * 4 { bits += 1 }
        guard bits > old else { return }
        let filed = slots
        slots = [UInt64](repeating: 0, count: 1 << bits)
        for slot in filed where slot != 0 { slots[free(from: UInt32(slot >> 32))] = slot }
    }

    /// The row filed under `hash` that `matches`, with its slot; otherwise the free slot where
    /// the probe ended.
    @inlinable
    func find(hash: UInt32, where matches: (Int) -> Bool) -> (slot: Int, row: Int?) {
        let mask = slots.count - 1
        var slot = Int(hash >> (32 - bits))
        while slots[slot] != 0 {
            if UInt32(truncatingIfNeeded: slots[slot] >> 32) == hash {
                let row = Int(truncatingIfNeeded: slots[slot] & 0xFFFF_FFFF) - 1
                if matches(row) { return (slot, row) }
            }
            slot = (slot + 1) & mask
        }
        return (slot, nil)
    }

    private func free(from hash: UInt32) -> Int {
        var slot = Int(hash >> (32 - bits))
        while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
        return slot
    }
}
