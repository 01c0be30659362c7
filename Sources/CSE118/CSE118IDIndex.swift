/// Where the row with each id is: an open-addressing hash table (linear probing) of 8-byte buckets,
/// each holding the row's place and 32 bits of its id's hash, not the id itself. A probe compares
/// those bits; only when they match is the id read from its row, through `idAt`. That keeps the
/// index of 400,000 ids at 4 MB, where a `Dictionary` of ids takes 20 MB and a SipHash per lookup.
struct CSE118IDIndex {
    typealias Place = CSE118State.Place

    /// 0 when empty; otherwise the hash bits (high half, top bit always set) and the place (low half).
    private var buckets: [UInt64] = []
    private(set) var count = 0
    /// Entries `fileLater` keeps for `filePending`.
    private var pending: [UInt64] = []
    /// Per table, so that no document can choose ids that pile up in one place.
    private let seed = UInt64.random(in: .min ... .max)

    private var mask: Int { buckets.count - 1 }

    /// The place of the row with `id`, if one has it.
    func find(_ id: CSE118ID, idAt: (Place) -> CSE118ID) -> Place? {
        guard !buckets.isEmpty else { return nil }
        let bits = hashBits(id)
        var bucket = Int(bits) & mask
        while buckets[bucket] != 0 {
            if UInt32(truncatingIfNeeded: buckets[bucket] >> 32) == bits {
                let place = Place(bits: UInt32(truncatingIfNeeded: buckets[bucket]))
                if idAt(place) == id { return place }
            }
            bucket = (bucket + 1) & mask
        }
        return nil
    }

    /// Files `place` under `id`, which must not be filed already.
    mutating func insert(_ place: Place, for id: CSE118ID) {
        if (count + 1) * 5 > buckets.count * 4 { resize(to: max(16, buckets.count * 2)) }
        file(entry(place, for: id))
        count += 1
    }

    /// Keeps `place` under `id` to be filed with the others by `filePending`; until then `find`
    /// does not see it, and nothing checks whether `id` is filed already.
    mutating func fileLater(_ place: Place, for id: CSE118ID) {
        pending.append(entry(place, for: id))
    }

    /// Files what `fileLater` kept, and returns the pairs of places (filed, then kept) whose ids
    /// share their hash bits: the same id twice, or rarely two ids. Entries are filed in the order
    /// of their buckets, so the table is written front to back, not one cache miss per id.
    mutating func filePending() -> [(Place, Place)] {
        defer { pending = [] }
        reserveCapacity(count + pending.count)
        // Grouped in place by the top bits of their bucket, about 1,000 groups: each group's
        // buckets span a few kilobytes, which stay in the cache while the group is filed.
        let shift = max(0, mask.nonzeroBitCount - 10)
        func group(_ entry: UInt64) -> Int { home(entry) >> shift }
        var ends = [Int](repeating: 0, count: (mask >> shift) + 1)
        for entry in pending { ends[group(entry)] += 1 }
        for index in ends.indices.dropFirst() { ends[index] += ends[index - 1] }
        // `next[g]` is the first place of group g not yet holding one of its entries.
        var next = [0] + ends.dropLast()
        for current in ends.indices {
            while next[current] < ends[current] {
                // Each entry moves once, straight to its group's next place.
                var entry = pending[next[current]]
                while group(entry) != current {
                    let target = group(entry)
                    swap(&entry, &pending[next[target]])
                    next[target] += 1
                }
                pending[next[current]] = entry
                next[current] += 1
            }
        }
        var alike: [(Place, Place)] = []
        for entry in pending {
            var bucket = home(entry)
            while buckets[bucket] != 0 {
                if buckets[bucket] >> 32 == entry >> 32 {
                    alike.append((Place(bits: UInt32(truncatingIfNeeded: buckets[bucket])), Place(bits: UInt32(truncatingIfNeeded: entry))))
                }
                bucket = (bucket + 1) & mask
            }
            buckets[bucket] = entry
            count += 1
        }
        return alike
    }

    /// Removes the entry of `id` at `place`, if there is one.
    mutating func remove(_ id: CSE118ID, at place: Place) {
        guard !buckets.isEmpty else { return }
        let filed = entry(place, for: id)
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

    private func entry(_ place: Place, for id: CSE118ID) -> UInt64 { UInt64(hashBits(id)) << 32 | UInt64(place.bits) }

    /// The bucket where an entry's probe starts.
    private func home(_ entry: UInt64) -> Int { Int(truncatingIfNeeded: entry >> 32) & mask }

    /// 32 bits of a seeded hash of all 16 bytes, the top one set: the bucket an id starts from is
    /// its low bits, so a table grows without reading any id again.
    private func hashBits(_ id: CSE118ID) -> UInt32 {
        var hash = (id.high ^ seed) &* 0x9E37_79B9_7F4A_7C15
        hash = (hash ^ (hash >> 32) ^ id.low) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (hash >> 29)) &* 0x94D0_49BB_1331_11EB
        return UInt32(truncatingIfNeeded: hash ^ (hash >> 32)) | 0x8000_0000
    }
}
