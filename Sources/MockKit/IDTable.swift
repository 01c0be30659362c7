/// Rows kept in the order they were added, found, added and removed by id in O(1) amortised time,
/// so requests about one row cost the same with 10 rows or 100,000; reading them all costs O(rows).
/// The threads and WSUV stores add rows in ascending id, so their tables are in id order.
///
/// Rows sit in an array of slots with a dictionary from id to slot. Adding is an append; removing
/// leaves an empty slot, and the slots are packed again once more than half are empty.
/// Inlinable, like the other kit types used on every request, so each API module specializes it.
public struct IDTable<Row: Identifiable> {
    @usableFromInline var slots: [Row?] = []
    @usableFromInline var slotOfID: [Row.ID: Int] = [:]

    @inlinable
    public init() {}

    @inlinable
    public var count: Int { slotOfID.count }

    /// All rows, in the order they were added.
    @inlinable
    public var rows: some Sequence<Row> { slots.lazy.compactMap { $0 } }

    /// Every id, in no particular order.
    @inlinable
    public var ids: Dictionary<Row.ID, Int>.Keys { slotOfID.keys }

    /// The row added last.
    @inlinable
    public var last: Row? { slots.last { $0 != nil } ?? nil }

    @inlinable
    public subscript(id: Row.ID) -> Row? {
        guard let slot = slotOfID[id] else { return nil }
        return slots[slot]
    }

    @inlinable
    public mutating func reserveCapacity(_ rows: Int) {
        slots.reserveCapacity(rows)
        slotOfID.reserveCapacity(rows)
    }

    /// Adds a row whose id is not in the table, after every other.
    @inlinable
    public mutating func append(_ row: Row) {
        let earlier = slotOfID.updateValue(slots.count, forKey: row.id)
        precondition(earlier == nil, "IDTable.append of an id already there")
        slots.append(row)
    }

    /// Changes the row with this id in place (no copy of the row's own arrays); nil when there is none.
    @inlinable
    public mutating func update<Result>(_ id: Row.ID, _ change: (inout Row) throws -> Result) rethrows -> Result? {
        guard let slot = slotOfID[id] else { return nil }
        return try change(&slots[slot]!)
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

extension IDTable where Row.ID: Comparable {
    /// A table of `rows` in any order, kept in id order; their ids must differ (the seed loaders check that first).
    @inlinable
    public init(_ rows: some Sequence<Row>) {
        for row in rows.sorted(by: { $0.id < $1.id }) { append(row) }
    }
}
