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
    func row<Row>(named name: String, in rows: [Row], nameOf: (Row) -> String) -> Int? {
        var name = name
        return name.withUTF8 { row(named: $0, in: rows, nameOf: nameOf) }
    }

    /// The same for a name given by its bytes (read in place from a seed document).
    func row<Row>(named name: UnsafeBufferPointer<UInt8>, in rows: [Row], nameOf: (Row) -> String) -> Int? {
        let hash = Self.hash(name)
        var slot = Int(hash) & (slots.count - 1)
        while slots[slot] != 0 {
            if let row = Self.row(in: slots[slot], hash: hash, named: name, in: rows, nameOf: nameOf) { return row }
            slot = (slot + 1) & (slots.count - 1)
        }
        return nil
    }

    /// Files `row` (its place in `rows`, or `rows.count` for one about to be appended) under
    /// `name`, unless a row has that name already: then that row's place, and nothing changes.
    /// One hash either way.
    mutating func insert<Row>(_ row: Int, named name: String, in rows: [Row], nameOf: (Row) -> String) -> Int? {
        precondition(row < Int(UInt32.max), "NameIndex holds fewer than 2^32 - 1 rows")
        var name = name
        return name.withUTF8 { name in
            let hash = Self.hash(name)
            var slot = Int(hash) & (slots.count - 1)
            while slots[slot] != 0 {
                if let earlier = Self.row(in: slots[slot], hash: hash, named: name, in: rows, nameOf: nameOf) { return earlier }
                slot = (slot + 1) & (slots.count - 1)
            }
            slots[slot] = UInt64(hash) << 32 | UInt64(row + 1)
            count += 1
            // At most three quarters full, so a probe rarely goes far.
            if count * 4 > slots.count * 3 { grow() }
            return nil
        }
    }

    private static func row<Row>(in slot: UInt64, hash: UInt32, named name: UnsafeBufferPointer<UInt8>, in rows: [Row],
                                 nameOf: (Row) -> String) -> Int? {
        guard UInt32(truncatingIfNeeded: slot >> 32) == hash else { return nil }
        let row = Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1
        var rowName = nameOf(rows[row])
        return rowName.withUTF8 { $0.count == name.count && (name.isEmpty || memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0) } ? row : nil
    }

    /// Twice the slots, each entry placed again by the hash it keeps.
    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        for entry in old where entry != 0 {
            var slot = Int(entry >> 32) & (slots.count - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
            slots[slot] = entry
        }
    }

    /// SipHash of the bytes (`Hasher`, seeded afresh by each process, so names sent to the server
    /// cannot be chosen to collide), folded to 32 bits.
    private static func hash(_ name: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(name))
        let value = UInt64(bitPattern: Int64(hasher.finalize()))
        return UInt32(truncatingIfNeeded: value ^ value >> 32)
    }
}
