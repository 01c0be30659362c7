/// Rows kept in ascending id order, found, added and removed by id in O(1) amortised time, so
/// requests about one row cost the same with 10 rows or 100,000; reading them all costs O(rows).
///
/// Rows sit in an array of slots in id order with a dictionary from id to slot. New rows take
/// ids above every earlier one (ids are never reused), so adding is an append; removing leaves
/// an empty slot, and the slots are packed again once more than half are empty.
/// Inlinable, like the other kit types used on every request, so each API module specializes it.
public struct IDTable<Row: Identifiable> where Row.ID: Comparable {
    @usableFromInline var slots: [Row?] = []
    @usableFromInline var slotOfID: [Row.ID: Int] = [:]
    /// The highest id ever appended, removed or not: new ids must be above it.
    @usableFromInline var highestID: Row.ID?

    @inlinable
    public init() {}

    /// A table of `rows` in any order; their ids must differ (the seed loaders check that first).
    @inlinable
    public init(_ rows: some Sequence<Row>) {
        for row in rows.sorted(by: { $0.id < $1.id }) { append(row) }
    }

    @inlinable
    public var count: Int { slotOfID.count }

    /// All rows, ascending id.
    @inlinable
    public var rows: some Sequence<Row> { slots.lazy.compactMap { $0 } }

    /// The row with the highest id.
    @inlinable
    public var last: Row? { slots.last { $0 != nil } ?? nil }

    @inlinable
    public subscript(id: Row.ID) -> Row? {
        guard let slot = slotOfID[id] else { return nil }
        return slots[slot]
    }

    /// Adds a row whose id is above every id in the table.
    @inlinable
    public mutating func append(_ row: Row) {
        if let highestID { precondition(row.id > highestID, "IDTable ids must ascend") }
        highestID = row.id
        slotOfID[row.id] = slots.count
        slots.append(row)
    }

    /// Puts a changed row in place of the one with its id, which must be in the table.
    @inlinable
    public mutating func replace(_ row: Row) {
        guard let slot = slotOfID[row.id] else { preconditionFailure("IDTable.replace of a missing id") }
        slots[slot] = row
    }

    @inlinable @discardableResult
    public mutating func remove(_ id: Row.ID) -> Row? {
        guard let slot = slotOfID.removeValue(forKey: id) else { return nil }
        let row = slots[slot]
        slots[slot] = nil
        if slots.count > 32, slotOfID.count * 2 < slots.count { pack() }
        return row
    }

    @usableFromInline mutating func pack() {
        slots = slots.filter { $0 != nil }
        slotOfID.removeAll(keepingCapacity: true)
        for (slot, row) in slots.enumerated() { slotOfID[row!.id] = slot }
    }
}
