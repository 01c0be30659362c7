import Foundation
import MockKit

/// The rows of a table found by the UTF-8 bytes of a name each row holds (users by username), in
/// O(1). The index keeps no strings of its own: each slot is 32 bits of the name's hash and the
/// row's number, 8 bytes, so a table of 100,000 names takes about 1.5 MB, and growing it hashes no
/// name again. Rows are only ever added, and keep their names.
///
/// At that size neither the slots nor the rows stay in the processor's caches, and a lookup spends
/// most of its time waiting for those two reads. The batch forms (`rows(named:)`, `insert(_:of:)`)
/// read the first slot, and the row it points to, of every name of a batch before comparing any,
/// so the reads of a batch wait for memory together instead of one after another.
struct NameIndex {
    /// 0 when free; otherwise the hash in the upper half and the row + 1 in the lower.
    private var slots = [UInt64](repeating: 0, count: 16)
    private(set) var count = 0

    /// How many names a batch form handles at a time: their reads fit the processor's queue of
    /// reads in flight many times over, and their slots and rows its first-level cache.
    static let batchSize = 64

    init() {}

    /// Room for `count` names without growing.
    init(capacity count: Int) {
        reserveCapacity(count)
    }

    /// The place in `rows` of the row whose name (`nameOf`) has the bytes of `name`.
    func row<Row>(named name: String, in rows: [Row], nameOf: (Row) -> String) -> Int? {
        var name = name
        return name.withUTF8 { name in find(name, hash: Self.hash(name), in: rows, nameOf: nameOf).row }
    }

    /// What `row(named:)` gives for each of `names` (at most `batchSize`), given by their bytes.
    func rows<Row>(named names: [UnsafeBufferPointer<UInt8>], in rows: [Row], nameOf: (Row) -> String) -> [Int?] {
        let hashes = names.map(Self.hash)
        let firstSlots = hashes.map { slots[slot(of: $0)] }
        let candidates = zip(hashes, firstSlots).map { hash, slot in Self.row(in: slot, hash: hash).map { nameOf(rows[$0]) } }
        return names.indices.map { index in
            if var candidate = candidates[index], candidate.withUTF8({ Self.same($0, names[index]) }) {
                return Self.row(in: firstSlots[index], hash: hashes[index])
            }
            return find(names[index], hash: hashes[index], in: rows, nameOf: nameOf).row
        }
    }

    /// Files `row` (its place in `rows`, or `rows.count` for one about to be appended) under
    /// `name`, unless a row has that name already: then that row's place, and nothing changes.
    /// One hash either way.
    mutating func insert<Row>(_ row: Int, named name: String, in rows: [Row], nameOf: (Row) -> String) -> Int? {
        var name = name
        return name.withUTF8 { name in insert(row, named: name, hash: Self.hash(name), in: rows, nameOf: nameOf) }
    }

    /// Files each row of `rows` in `range` in turn, as `insert(_:named:in:nameOf:)`; stops at the
    /// first whose name an earlier row has, and returns its place.
    mutating func insert<Row>(_ range: Range<Int>, of rows: [Row], nameOf: (Row) -> String) -> Int? {
        for start in stride(from: range.lowerBound, to: range.upperBound, by: Self.batchSize) {
            let batch = start..<min(start + Self.batchSize, range.upperBound)
            reserveCapacity(count + batch.count)
            let hashes = batch.map { row in
                var name = nameOf(rows[row])
                return name.withUTF8(Self.hash)
            }
            // Read only to have the slots in the cache when the inserts below look at them.
            let firstSlots = hashes.map { slots[slot(of: $0)] }
            for (offset, row) in batch.enumerated() {
                var name = nameOf(rows[row])
                let earlier = name.withUTF8 { name in
                    insert(row, named: name, hash: hashes[offset], in: rows, nameOf: nameOf, firstSlot: firstSlots[offset])
                }
                if earlier != nil { return row }
            }
        }
        return nil
    }

    /// `firstSlot`, when given, is the slot of `hash` as read since the index last grew; a slot
    /// once filled keeps its entry until then.
    private mutating func insert<Row>(_ row: Int, named name: UnsafeBufferPointer<UInt8>, hash: UInt32, in rows: [Row],
                                      nameOf: (Row) -> String, firstSlot: UInt64 = 0) -> Int? {
        precondition(row < Int(UInt32.max), "NameIndex holds fewer than 2^32 - 1 rows")
        let (slot, earlier) = find(name, hash: hash, in: rows, nameOf: nameOf, firstSlot: firstSlot)
        if let earlier { return earlier }
        slots[slot] = UInt64(hash) << 32 | UInt64(row + 1)
        count += 1
        if count * 4 > slots.count * 3 { reserveCapacity(count) }
        return nil
    }

    /// The row whose name has the bytes of `name`, with the slot holding it; otherwise the free
    /// slot where the probe for it ended.
    private func find<Row>(_ name: UnsafeBufferPointer<UInt8>, hash: UInt32, in rows: [Row], nameOf: (Row) -> String,
                           firstSlot: UInt64 = 0) -> (slot: Int, row: Int?) {
        var slot = slot(of: hash)
        var entry = firstSlot != 0 ? firstSlot : slots[slot]
        while entry != 0 {
            if let row = Self.row(in: entry, hash: hash) {
                var rowName = nameOf(rows[row])
                if rowName.withUTF8({ Self.same($0, name) }) { return (slot, row) }
            }
            slot = (slot + 1) & (slots.count - 1)
            entry = slots[slot]
        }
        return (slot, nil)
    }

    private func slot(of hash: UInt32) -> Int { Int(hash) & (slots.count - 1) }

    /// The row an entry files, if the entry is for `hash`.
    private static func row(in entry: UInt64, hash: UInt32) -> Int? {
        guard entry != 0, UInt32(truncatingIfNeeded: entry >> 32) == hash else { return nil }
        return Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
    }

    private static func same(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        lhs.count == rhs.count && (lhs.isEmpty || memcmp(lhs.baseAddress!, rhs.baseAddress!, lhs.count) == 0)
    }

    /// At most three quarters full, so a probe rarely goes far: twice the slots until `count`
    /// names fit, each entry placed again by the hash it keeps.
    private mutating func reserveCapacity(_ count: Int) {
        var size = slots.count
        while size * 3 < count * 4 { size *= 2 }
        guard size > slots.count else { return }
        let old = slots
        slots = [UInt64](repeating: 0, count: size)
        for entry in old where entry != 0 {
            var slot = slot(of: UInt32(truncatingIfNeeded: entry >> 32))
            while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
            slots[slot] = entry
        }
    }

    /// A key drawn afresh by each process, so names sent to the server cannot be chosen in
    /// advance to collide.
    private static let key = UInt64.random(in: .min ... .max)

    /// 32 bits of a keyed multiply-and-fold hash of the bytes, taken eight at a time: a short
    /// name costs a few multiplications, where SipHash (`Hasher`) costs several times more.
    private static func hash(_ name: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let bytes = UnsafeRawBufferPointer(name)
        var state = key ^ UInt64(bytes.count)
        for offset in stride(from: 0, to: bytes.count, by: 8) {
            var word: UInt64 = 0
            if offset + 8 <= bytes.count {
                word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            } else {
                for index in offset..<bytes.count { word |= UInt64(bytes[index]) << (8 * (index - offset)) }
            }
            state = fold(state ^ word, key ^ 0x9E37_79B9_7F4A_7C15)
        }
        let hash = fold(state, 0xC2B2_AE3D_27D4_EB4F)
        return UInt32(truncatingIfNeeded: hash ^ hash >> 32)
    }

    /// The two halves of the 128-bit product, combined.
    private static func fold(_ lhs: UInt64, _ rhs: UInt64) -> UInt64 {
        let product = lhs.multipliedFullWidth(by: rhs)
        return product.high ^ product.low
    }
}
