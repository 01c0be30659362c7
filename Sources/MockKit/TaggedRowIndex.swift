/// Rows found by a key the rows themselves hold: an open-addressing table (linear probing) of
/// 8-byte slots, each 32 bits of the key's hash (`KeyHash`) and the row's place + 1 (0 is an empty
/// slot), where a `Dictionary` would keep a second copy of every key and hash it with SipHash.
/// `matches` says whether the row at a place holds the key looked for (the hash bits alone may be
/// shared). At most four fifths full: a probe compares 8-byte slots, eight to a cache line, so a
/// longer run costs less than the memory a sparser table would touch. Growing places each slot
/// again by the bits it keeps, so no key is hashed again.
public struct TaggedRowIndex {
    @usableFromInline var slots: [UInt64]
    @usableFromInline var filled = 0
    /// `slots.count` is `1 << bits`; a slot's probe starts at the top `bits` of its hash.
    @usableFromInline var bits = 4
    /// Slots `fileLater` keeps for `filePending`.
    @usableFromInline var pending: [UInt64] = []

    public var count: Int { filled }

    public init(capacity: Int = 0) {
        while Self.isOverfull(capacity, bits: bits) { bits += 1 }
        slots = Self.emptySlots(1 << bits)
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
        let (slot, earlier) = find(hash: hash, where: matches)
        if let earlier { return earlier }
        slots[slot] = Self.slot(row, hash: hash)
        filled += 1
        if Self.isOverfull(filled, bits: bits) { reserveCapacity(filled) }
        return nil
    }

    /// Files `row` under `hash`, whose key the caller knows is not filed.
    public mutating func add(_ row: Int, hash: UInt32) {
        _ = insert(row, hash: hash) { _ in false }
    }

    /// Takes `row` filed under `hash` out, if it is there. The slots after it in its run move
    /// back into the gap when their probe passes it, so no probe stops short of them.
    public mutating func remove(_ row: Int, hash: UInt32) {
        let mask = slots.count - 1, taken = Self.slot(row, hash: hash)
        var gap = home(hash)
        while slots[gap] != taken {
            guard slots[gap] != 0 else { return }
            gap = (gap + 1) & mask
        }
        var next = gap
        while true {
            next = (next + 1) & mask
            guard slots[next] != 0 else { break }
            if (next - home(UInt32(truncatingIfNeeded: slots[next] >> 32))) & mask >= (next - gap) & mask {
                slots[gap] = slots[next]
                gap = next
            }
        }
        slots[gap] = 0
        filled -= 1
    }

    /// Keeps `row` under `hash` for `filePending`: until then no lookup sees it, and nothing
    /// checks whether its key is filed already.
    @inlinable
    public mutating func fileLater(_ row: Int, hash: UInt32) {
        pending.append(Self.slot(row, hash: hash))
    }

    /// Files the rows `fileLater` kept, and returns the pairs of rows (filed before, kept) that
    /// share their hash bits, for the caller to compare their keys.
    public mutating func filePending() -> [(filed: Int, kept: Int)] {
        defer { pending = [] }
        reserveCapacity(filled + pending.count)
        filled += pending.count
        let bits = bits
        return slots.withUnsafeMutableBufferPointer { slots in
            var alike: [(filed: Int, kept: Int)] = []
            func file(_ slot: UInt64) {
                var probe = Int(slot >> (64 - bits))
                while slots[probe] != 0 {
                    if slots[probe] >> 32 == slot >> 32 { alike.append((Self.row(in: slots[probe]), Self.row(in: slot))) }
                    probe = (probe + 1) & (slots.count - 1)
                }
                slots[probe] = slot
            }
            if slots.count <= Self.cachedSlots {
                for slot in pending { file(slot) }
            } else {
                Self.inGroups(pending, bits: 10, file)
            }
            return alike
        }
    }

    /// Slots that stay in a core's cache (1 MiB of the 2 on the machine start-up is measured on):
    /// slots filed at random places there cost no wait for memory.
    static var cachedSlots: Int { 1 << 17 }

    /// Calls `body` with each slot, those of each of `1 << bits` groups by the top bits of their
    /// hash together: a larger table is then written front to back, a few kilobytes at a time, not
    /// at a random place (a cache miss) for each row.
    private static func inGroups(_ slots: [UInt64], bits: Int, _ body: (UInt64) -> Void) {
        var starts = [Int](repeating: 0, count: (1 << bits) + 1)
        for slot in slots { starts[Int(slot >> (64 - bits)) + 1] += 1 }
        for group in starts.indices.dropFirst() { starts[group] += starts[group - 1] }
        let grouped = [UInt64](unsafeUninitializedCapacity: slots.count) { grouped, count in
            for slot in slots {
                let group = Int(slot >> (64 - bits))
                grouped[starts[group]] = slot
                starts[group] += 1
            }
            count = slots.count
        }
        for slot in grouped { body(slot) }
    }

    /// Room for `count` rows without growing: twice the slots until they fit.
    public mutating func reserveCapacity(_ count: Int) {
        let old = bits
        while Self.isOverfull(count, bits: bits) { bits += 1 }
        guard bits > old else { return }
        let filed = slots
        slots = Self.emptySlots(1 << bits)
        for slot in filed where slot != 0 { slots[free(from: UInt32(slot >> 32))] = slot }
    }

    /// The row filed under `hash` that `matches`, with its slot; otherwise the free slot where
    /// the probe ended.
    @inlinable
    func find(hash: UInt32, where matches: (Int) -> Bool) -> (slot: Int, row: Int?) {
        let mask = slots.count - 1
        var slot = home(hash)
        while slots[slot] != 0 {
            if UInt32(truncatingIfNeeded: slots[slot] >> 32) == hash {
                let row = Self.row(in: slots[slot])
                if matches(row) { return (slot, row) }
            }
            slot = (slot + 1) & mask
        }
        return (slot, nil)
    }

    @inlinable
    func home(_ hash: UInt32) -> Int { Int(hash >> (32 - bits)) }

    @inlinable
    static func slot(_ row: Int, hash: UInt32) -> UInt64 {
        precondition(row >= 0 && row < Int(UInt32.max), "TaggedRowIndex holds rows 0 to 2^32 - 2")
        return UInt64(hash) << 32 | UInt64(row + 1)
    }

    @inlinable
    static func row(in slot: UInt64) -> Int { Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1 }

    @inlinable
    static func isOverfull(_ count: Int, bits: Int) -> Bool { count * 5 > (1 << bits) * 4 }

    /// Zeros in huge pages when large (`HugePages`): a table of a large seed is megabytes of slots
    /// written at random places.
    private static func emptySlots(_ count: Int) -> [UInt64] {
        var slots: [UInt64] = []
        slots.reserveCapacityInHugePages(count)
        slots.append(contentsOf: repeatElement(0, count: count))
        return slots
    }

    private func free(from hash: UInt32) -> Int {
        var slot = home(hash)
        while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
        return slot
    }
}
