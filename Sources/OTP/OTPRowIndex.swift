import MockKit

/// Row numbers by a key the rows themselves hold (a user's number, a token): open addressing with
/// linear probing, 8 bytes a slot, where a `Dictionary` would keep a second copy of every key and
/// hash it with SipHash. Callers hash the key (`OTPHash`) and say whether a row holds it.
struct RowIndex {
    /// The high half of the key's hash, then the row + 1 in the low half; 0 is an empty slot.
    /// The stored half of the hash finds a slot's home again and skips most rows that differ.
    private var slots: [UInt64] = []
    private(set) var count = 0

    private static let hashMask: UInt64 = 0xFFFF_FFFF_0000_0000

    /// Room for `rows` rows without growing: at most two thirds of the slots filled (three
    /// quarters of a small table), never all of them.
    mutating func reserveCapacity(_ rows: Int) {
        let wanted = max(16, rows + rows / 2)
        if wanted > slots.count { rehash(capacity: wanted) }
    }

    /// The row with that hash for which `holdsKey` is true.
    func row(hash: UInt64, where holdsKey: (Int) -> Bool) -> Int? {
        guard !slots.isEmpty else { return nil }
        let tag = hash & Self.hashMask
        var slot = home(of: tag)
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            if entry & Self.hashMask == tag, holdsKey(Self.row(in: entry)) { return Self.row(in: entry) }
            slot = slot + 1 == slots.count ? 0 : slot + 1
        }
    }

    /// Adds a row whose key is not in the table yet.
    mutating func insert(hash: UInt64, row: Int) {
        // Grown at three quarters full, so probes stay short.
        if (count + 1) * 4 > slots.count * 3 { rehash(capacity: max(16, slots.count * 2)) }
        place((hash & Self.hashMask) | UInt64(row + 1))
        count += 1
    }

    /// Files rows 0..<rows in an empty table, one after the other with nothing between them, so
    /// the processor overlaps their waits for memory. False when two rows have the same key.
    mutating func fill(rows: Int, hash: (Int) -> UInt64, sameKey: (Int, Int) -> Bool) -> Bool {
        precondition(count == 0, "fill is for an empty table")
        reserveCapacity(rows)
        let size = slots.count
        let filled = slots.withUnsafeMutableBufferPointer { slots in
            for row in 0..<rows {
                let entry = (hash(row) & Self.hashMask) | UInt64(row + 1)
                var slot = Self.home(of: entry, size: size)
                while slots[slot] != 0 {
                    if (slots[slot] ^ entry) & Self.hashMask == 0, sameKey(Self.row(in: slots[slot]), row) { return false }
                    slot = slot + 1 == size ? 0 : slot + 1
                }
                slots[slot] = entry
            }
            return true
        }
        if filled { count = rows }
        return filled
    }

    /// Removes the row, which must be in the table under that hash.
    mutating func remove(hash: UInt64, row: Int) {
        let entry = (hash & Self.hashMask) | UInt64(row + 1)
        var hole = home(of: entry)
        while slots[hole] != entry { hole = hole + 1 == slots.count ? 0 : hole + 1 }
        // Later entries of the same run move back into the hole when it is on their probe path,
        // so no lookup stops early at it.
        var next = hole
        while true {
            next = next + 1 == slots.count ? 0 : next + 1
            let moving = slots[next]
            if moving == 0 { break }
            let home = home(of: moving)
            if distance(from: home, to: next) >= distance(from: hole, to: next) {
                slots[hole] = moving
                hole = next
            }
        }
        slots[hole] = 0
        count -= 1
    }

    private static func row(in entry: UInt64) -> Int { Int(entry & 0xFFFF_FFFF) - 1 }

    /// The first slot to try: the hash's high half scaled to the table's size.
    private func home(of entry: UInt64) -> Int { Self.home(of: entry, size: slots.count) }

    private static func home(of entry: UInt64, size: Int) -> Int {
        Int(truncatingIfNeeded: ((entry >> 32) * UInt64(size)) >> 32)  // both under 2^32: no overflow
    }

    /// Slots from `start` forward to `end`, wrapping around.
    private func distance(from start: Int, to end: Int) -> Int {
        end >= start ? end - start : end + slots.count - start
    }

    private mutating func place(_ entry: UInt64) {
        var slot = home(of: entry)
        while slots[slot] != 0 { slot = slot + 1 == slots.count ? 0 : slot + 1 }
        slots[slot] = entry
    }

    private mutating func rehash(capacity: Int) {
        let old = slots
        slots = []
        slots.reserveCapacityInHugePages(capacity)
        slots.append(contentsOf: repeatElement(0, count: capacity))
        for entry in old where entry != 0 { place(entry) }
    }
}

/// Hashes for `RowIndex`: a per-process random key mixed in, so the numbers a client creates
/// cannot be chosen to pile up in one run of slots.
enum OTPHash {
    private static let key = UInt64.random(in: .min ... .max)

    /// Murmur3's 64-bit finalizer over the key and `value`.
    static func of(_ value: UInt64) -> UInt64 {
        var mixed = value ^ key
        mixed ^= mixed >> 33
        mixed &*= 0xFF51_AFD7_ED55_8CCD
        mixed ^= mixed >> 33
        mixed &*= 0xC4CE_B9FE_1A85_EC53
        return mixed ^ (mixed >> 33)
    }

    static func of(_ first: UInt64, _ second: UInt64, _ third: UInt64) -> UInt64 {
        of(first ^ of(second ^ of(third)))
    }
}
