import Foundation
import MockKit

/// The rows of a table found by the UTF-8 bytes of a name each row holds (users by username), in
/// O(1). The index keeps no strings of its own: each slot is 32 bits of the name's hash and the
/// row's number, 8 bytes, so a table of 100,000 names takes about 1.5 MB, and growing it hashes no
/// name again. Rows are only ever added, and keep their names.
struct NameIndex {
    /// 0 when free; otherwise the hash in the upper half and the row + 1 in the lower.
    private var slots = [UInt64](repeating: 0, count: 16)
    private(set) var count = 0

    /// The place in `rows` of the row whose name (`nameOf`) has the bytes of `name`.
    func row<Row>(named name: UnsafeBufferPointer<UInt8>, in rows: [Row], nameOf: (Row) -> String) -> Int? {
        find(name, hash: KeyHash.of(name), in: rows, nameOf: nameOf).row
    }

    func row<Row>(named name: String, in rows: [Row], nameOf: (Row) -> String) -> Int? {
        var name = name
        return name.withUTF8 { row(named: $0, in: rows, nameOf: nameOf) }
    }

    /// Files `row` (its place in `rows`, or `rows.count` for one about to be appended) under
    /// `name`, unless a row has that name already: then that row's place, and nothing changes.
    /// One hash either way.
    mutating func insert<Row>(_ row: Int, named name: String, in rows: [Row], nameOf: (Row) -> String) -> Int? {
        precondition(row < Int(UInt32.max), "NameIndex holds fewer than 2^32 - 1 rows")
        var name = name
        let hash = name.withUTF8(KeyHash.of)
        let (slot, earlier) = name.withUTF8 { find($0, hash: hash, in: rows, nameOf: nameOf) }
        if let earlier { return earlier }
        slots[slot] = UInt64(hash) << 32 | UInt64(row + 1)
        count += 1
        if count * 4 > slots.count * 3 { reserveCapacity(count) }
        return nil
    }

    /// Files each row of `rows` in `range` in turn, as `insert(_:named:in:nameOf:)`, into a table
    /// grown once for them all; stops at the first whose name an earlier row has, and returns its
    /// place.
    mutating func insert<Row>(_ range: Range<Int>, of rows: [Row], nameOf: (Row) -> String) -> Int? {
        reserveCapacity(count + range.count)
        for row in range where insert(row, named: nameOf(rows[row]), in: rows, nameOf: nameOf) != nil { return row }
        return nil
    }

    /// The row whose name has the bytes of `name`, with the slot holding it; otherwise the free
    /// slot where the probe for it ended.
    private func find<Row>(_ name: UnsafeBufferPointer<UInt8>, hash: UInt32, in rows: [Row],
                           nameOf: (Row) -> String) -> (slot: Int, row: Int?) {
        var slot = Int(hash) & (slots.count - 1)
        while slots[slot] != 0 {
            if UInt32(truncatingIfNeeded: slots[slot] >> 32) == hash {
                let row = Int(truncatingIfNeeded: slots[slot] & 0xFFFF_FFFF) - 1
                var rowName = nameOf(rows[row])
                if rowName.withUTF8({ $0.count == name.count && (name.isEmpty || memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0) }) {
                    return (slot, row)
                }
            }
            slot = (slot + 1) & (slots.count - 1)
        }
        return (slot, nil)
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
            var slot = Int(entry >> 32) & (size - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = entry
        }
    }
}
