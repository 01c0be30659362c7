/// An open-addressing hash table (linear probing) of 8-byte buckets, each holding a 32-bit value
/// (a row's place or slot) and 32 bits of its key's hash, not the key itself. A probe compares those
/// bits; only when they match does the caller compare the key, read from the row the value names.
/// That keeps the index of 400,000 ids at 4 MB, where a `Dictionary` of ids takes 20 MB, a SipHash
/// per lookup and reference counting for String keys.
struct CSE118HashTable {
    /// 0 when empty; otherwise the hash bits (high half, top bit always set) and the value (low half).
    private var buckets: [UInt64] = []
    private(set) var count = 0
    /// Entries `fileLater` keeps for `filePending`.
    private var pending: [UInt64] = []

    private var mask: Int { buckets.count - 1 }

    /// The value filed under `hash` for which `matches` (the key of the row it names is the one
    /// looked for) is true.
    func find(_ hash: CSE118Hash, where matches: (UInt32) -> Bool) -> UInt32? {
        guard !buckets.isEmpty else { return nil }
        var bucket = home(hash.bits)
        while buckets[bucket] != 0 {
            if UInt32(truncatingIfNeeded: buckets[bucket] >> 32) == hash.bits {
                let value = UInt32(truncatingIfNeeded: buckets[bucket])
                if matches(value) { return value }
            }
            bucket = (bucket + 1) & mask
        }
        return nil
    }

    /// Files `value` under `hash`; its key must not be filed already.
    mutating func insert(_ value: UInt32, _ hash: CSE118Hash) {
        if (count + 1) * 5 > buckets.count * 4 { resize(to: max(16, buckets.count * 2)) }
        file(Self.entry(value, hash))
        count += 1
    }

    /// Keeps `value` under `hash` to be filed with the others by `filePending`; until then `find`
    /// does not see it, and nothing checks whether its key is filed already.
    mutating func fileLater(_ value: UInt32, _ hash: CSE118Hash) {
        pending.append(Self.entry(value, hash))
    }

    /// Files what `fileLater` kept, and returns the pairs of values (filed, then kept) that share
    /// their hash bits: the same key twice, or rarely two keys. Entries are filed in the order of
    /// their buckets, so the table is written front to back, not one cache miss per key.
    mutating func filePending() -> [(filed: UInt32, kept: UInt32)] {
        defer { pending = [] }
        reserveCapacity(count + pending.count)
        // Grouped by the top bits of their bucket, about 1,000 groups: each group's buckets span a
        // few kilobytes, which stay in the cache while the group is filed.
        let shift = max(0, mask.nonzeroBitCount - 10)
        func group(_ entry: UInt64) -> Int { home(entry) >> shift }
        var starts = [Int](repeating: 0, count: (mask >> shift) + 2)
        for entry in pending { starts[group(entry) + 1] += 1 }
        for index in starts.indices.dropFirst() { starts[index] += starts[index - 1] }
        let grouped = [UInt64](unsafeUninitializedCapacity: pending.count) { grouped, filled in
            for entry in pending {
                grouped[starts[group(entry)]] = entry
                starts[group(entry)] += 1
            }
            filled = pending.count
        }
        var alike: [(filed: UInt32, kept: UInt32)] = []
        for entry in grouped {
            var bucket = home(entry)
            while buckets[bucket] != 0 {
                if buckets[bucket] >> 32 == entry >> 32 {
                    alike.append((UInt32(truncatingIfNeeded: buckets[bucket]), UInt32(truncatingIfNeeded: entry)))
                }
                bucket = (bucket + 1) & mask
            }
            buckets[bucket] = entry
            count += 1
        }
        return alike
    }

    /// Removes `value` filed under `hash`, if it is.
    mutating func remove(_ value: UInt32, _ hash: CSE118Hash) {
        guard !buckets.isEmpty else { return }
        let filed = Self.entry(value, hash)
        var hole = home(filed)
        while buckets[hole] != filed {
            guard buckets[hole] != 0 else { return }
            hole = (hole + 1) & mask
        }
        // Entries further along that could sit in the hole move back into it, so that no probe
        // stops short of them at an empty bucket.
        var next = hole
        while true {
            next = (next + 1) & mask
            guard buckets[next] != 0 else { break }
            if (next - home(buckets[next])) & mask >= (next - hole) & mask {
                buckets[hole] = buckets[next]
                hole = next
            }
        }
        buckets[hole] = 0
        count -= 1
    }

    /// Room for `total` entries without growing.
    mutating func reserveCapacity(_ total: Int) {
        var size = max(16, buckets.count)
        while total * 5 > size * 4 { size *= 2 }
        if size > buckets.count { resize(to: size) }
    }

    private mutating func resize(to size: Int) {
        let old = buckets
        buckets = Array(repeating: 0, count: size)
        for entry in old where entry != 0 { file(entry) }
    }

    /// Puts an entry in the first empty bucket from its home.
    private mutating func file(_ entry: UInt64) {
        var bucket = home(entry)
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = entry
    }

    private static func entry(_ value: UInt32, _ hash: CSE118Hash) -> UInt64 { UInt64(hash.bits) << 32 | UInt64(value) }

    /// The bucket where the probe for an entry starts: the low bits of its hash, so a table grows
    /// without reading any key again.
    private func home(_ entry: UInt64) -> Int { home(UInt32(truncatingIfNeeded: entry >> 32)) }

    private func home(_ bits: UInt32) -> Int { Int(bits) & mask }
}

/// 32 bits of a seeded hash of a key, the top bit set (so no entry is 0). Each index picks its
/// seed at random, so that no document can choose keys that pile up in one place.
struct CSE118Hash {
    let bits: UInt32

    init(_ id: CSE118ID, seed: UInt64) {
        var hash = Self.start(seed, count: 16)
        Self.add(id.high, to: &hash)
        Self.add(id.low, to: &hash)
        bits = Self.finish(hash)
    }

    init(_ bytes: UnsafeRawBufferPointer, seed: UInt64) {
        var hash = Self.start(seed, count: bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            Self.add(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self), to: &hash)
            offset += 8
        }
        var last: UInt64 = 0
        for byte in bytes[offset...].reversed() { last = last << 8 | UInt64(byte) }
        Self.add(last, to: &hash)
        bits = Self.finish(hash)
    }

    // Wrapping products are spelled `&*=`: FixedWidthInteger's `&*` is declared for macOS 15,
    // which scripts/check-availability.py refuses.
    private static func start(_ seed: UInt64, count: Int) -> UInt64 {
        var scaled = UInt64(truncatingIfNeeded: count)
        scaled &*= 0x9E37_79B9_7F4A_7C15
        return seed ^ scaled
    }

    private static func add(_ word: UInt64, to hash: inout UInt64) {
        hash ^= word
        hash &*= 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 31
    }

    private static func finish(_ hash: UInt64) -> UInt32 {
        var mixed = hash ^ (hash >> 29)
        mixed &*= 0x94D0_49BB_1331_11EB
        return UInt32(truncatingIfNeeded: mixed ^ (mixed >> 32)) | 0x8000_0000
    }
}
