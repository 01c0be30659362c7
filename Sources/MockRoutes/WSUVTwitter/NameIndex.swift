import Foundation
import MockKit

/// The rows of a table found by the UTF-8 bytes of a name each row holds (users by username), in
/// O(1), in a `TaggedRowIndex`: 8 bytes a name and no strings of its own, about 1 MB for 100,000
/// names. Rows are only ever added, and keep their names.
struct NameIndex {
    private var table = TaggedRowIndex()

    var count: Int { table.count }

    /// The place in `rows` of the row whose name (`nameOf`) has the bytes of `name`.
    func row<Row>(named name: UnsafeBufferPointer<UInt8>, in rows: [Row], nameOf: (Row) -> String) -> Int? {
        table.row(hash: KeyHash.of(name)) { Self.hasName(name, rows[$0], nameOf) }
    }

    func row<Row>(named name: String, in rows: [Row], nameOf: (Row) -> String) -> Int? {
        var name = name
        return name.withUTF8 { row(named: $0, in: rows, nameOf: nameOf) }
    }

    /// Files `row` (its place in `rows`, or `rows.count` for one about to be appended) under
    /// `name`, unless a row has that name already: then that row's place, and nothing changes.
    /// One hash either way.
    mutating func insert<Row>(_ row: Int, named name: String, in rows: [Row], nameOf: (Row) -> String) -> Int? {
        var name = name
        return name.withUTF8 { name in table.insert(row, hash: KeyHash.of(name)) { Self.hasName(name, rows[$0], nameOf) } }
    }

    /// Files each row of `rows` in `range` in turn, as `insert(_:named:in:nameOf:)`, into a table
    /// grown once for them all; stops at the first whose name an earlier row has, and returns its
    /// place.
    mutating func insert<Row>(_ range: Range<Int>, of rows: [Row], nameOf: (Row) -> String) -> Int? {
        table.reserveCapacity(count + range.count)
        for row in range where insert(row, named: nameOf(rows[row]), in: rows, nameOf: nameOf) != nil { return row }
        return nil
    }

    private static func hasName<Row>(_ name: UnsafeBufferPointer<UInt8>, _ row: Row, _ nameOf: (Row) -> String) -> Bool {
        var rowName = nameOf(row)
        return rowName.withUTF8 { $0.count == name.count && (name.isEmpty || memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0) }
    }
}
