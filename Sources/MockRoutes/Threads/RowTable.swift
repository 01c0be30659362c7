import MockKit

/// Rows kept in ascending id order, found by id without hashing. Ids rise by at least one from
/// slot to slot, so an id can only sit in the slots no further from the first (or last) id than it
/// is: with ids that run without gaps, as a seed's and the store's own new ones do, that is one
/// slot, and otherwise a binary search over the slots the gaps leave.
///
/// Removing a row marks its slot (the row stays, so the ids keep rising without holes and no
/// slot needs room for "no row"); the slots are packed again once more than half are removed.
struct RowTable<Row: Identifiable> where Row.ID == Int {
    private var slots: [Row] = []
    /// One bit per slot, set once its row is removed; words past the end have none set.
    private var removed: [UInt64] = []
    private(set) var count = 0

    /// Room for `capacity` rows without growing. Memory is only touched as rows arrive, so an upper
    /// bound costs address space, not memory (in huge pages where it is large: `HugePages`).
    init(reservingCapacity capacity: Int = 0) {
        slots.reserveCapacityInHugePages(capacity)
    }

    /// All rows, ascending id.
    var rows: some Sequence<Row> {
        let table = self
        return slots.indices.lazy.filter { !table.isRemoved($0) }.map { table.slots[$0] }
    }

    /// The row with the highest id.
    var last: Row? { slots.indices.last { !isRemoved($0) }.map { slots[$0] } }

    /// The highest id the table holds or held since it was last packed.
    var lastID: Int? { slots.last?.id }

    /// How many slots there are. A row keeps its slot until the table is packed, which only
    /// removing rows does.
    var slotCount: Int { slots.count }

    /// The row in a slot, nil when it was removed.
    subscript(slot slot: Int) -> Row? { isRemoved(slot) ? nil : slots[slot] }

    subscript(id: Int) -> Row? {
        slot(of: id).flatMap { self[slot: $0] }
    }

    func contains(_ id: Int) -> Bool {
        slot(of: id).map { !isRemoved($0) } ?? false
    }

    /// Adds a row whose id is above every other.
    mutating func append(_ row: Row) {
        precondition(lastID.map { $0 < row.id } ?? true, "RowTable.append below the highest id")
        slots.append(row)
        count += 1
    }

    /// Changes the row with this id in place; nil when there is none.
    mutating func update<Result>(_ id: Int, _ change: (inout Row) -> Result) -> Result? {
        guard let slot = slot(of: id), !isRemoved(slot) else { return nil }
        return change(&slots[slot])
    }

    /// Changes every row in place, ascending id.
    mutating func updateAll(_ change: (inout Row) -> Void) {
        for slot in slots.indices where !isRemoved(slot) {
            change(&slots[slot])
        }
    }

    @discardableResult
    mutating func remove(_ id: Int) -> Row? {
        guard let slot = slot(of: id), !isRemoved(slot) else { return nil }
        if removed.count <= slot >> 6 { removed.append(contentsOf: repeatElement(0, count: (slot >> 6) + 1 - removed.count)) }
        removed[slot >> 6] |= 1 << (slot & 63)
        count -= 1
        let row = slots[slot]
        if slots.count > 32, count * 2 < slots.count { pack() }
        return row
    }

    private func isRemoved(_ slot: Int) -> Bool {
        slot >> 6 < removed.count && removed[slot >> 6] & 1 << (slot & 63) != 0
    }

    private mutating func pack() {
        var kept = 0
        for slot in slots.indices where !isRemoved(slot) {
            slots.swapAt(kept, slot)
            kept += 1
        }
        slots.removeLast(slots.count - kept)
        removed = []
    }

    /// The slot that holds or held `id`.
    private func slot(of id: Int) -> Int? {
        guard let first = slots.first?.id, let last = slots.last?.id, id >= first, id <= last else { return nil }
        var low = max(0, slots.count - 1 - Self.distance(id, last))
        var high = min(slots.count - 1, Self.distance(first, id))
        // Without gaps between it and the last (or first) id, a bound is the slot itself.
        if slots[low].id == id { return low }
        if slots[high].id == id { return high }
        while low <= high {
            let middle = low + (high - low) / 2
            let found = slots[middle].id
            if found == id { return middle }
            if found < id { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    /// `upper - lower` for `lower <= upper`, or `Int.max` when that does not fit.
    private static func distance(_ lower: Int, _ upper: Int) -> Int {
        let (difference, overflow) = upper.subtractingReportingOverflow(lower)
        return overflow ? .max : difference
    }
}

/// A seed array's rows, read in document order into a table in id order. While the ids rise, as
/// a saved state's do, each row goes straight into the table and no id is looked up; from the
/// first row out of order on, the rows are gathered, their ids in a set, and sorted at the end.
struct SeedRows<Row: Identifiable> where Row.ID == Int {
    private var table: RowTable<Row>
    private var unordered: [Row] = []
    private var unorderedIDs: Set<Int>?

    /// Room for `capacity` rows in id order (see `RowTable.init(reservingCapacity:)`).
    init(reservingCapacity capacity: Int) {
        table = RowTable(reservingCapacity: capacity)
    }

    /// Whether the rows came out of id order (and `finish` sorts them).
    var isReordered: Bool { unorderedIDs != nil }

    /// How many rows were added.
    var count: Int { unorderedIDs == nil ? table.slotCount : unordered.count }

    /// The row added `position`th (from 0), as it was added.
    subscript(position: Int) -> Row {
        unorderedIDs == nil ? table[slot: position]! : unordered[position]
    }

    /// Adds the next row; false (and nothing added) when a row with its id came before.
    mutating func add(_ row: Row) -> Bool {
        if unorderedIDs == nil {
            if table.lastID.map({ $0 < row.id }) ?? true {
                table.append(row)
                return true
            }
            unordered = Array(table.rows)
            unorderedIDs = Set(unordered.lazy.map(\.id))
            table = RowTable()
        }
        guard unorderedIDs?.insert(row.id).inserted == true else { return false }
        unordered.append(row)
        return true
    }

    /// The rows, ascending id.
    mutating func finish() -> RowTable<Row> {
        guard unorderedIDs != nil else {
            // Handed over, not shared: the caller's first change then copies nothing.
            let rows = table
            table = RowTable()
            return rows
        }
        var sorted = RowTable<Row>(reservingCapacity: unordered.count)
        for row in unordered.sorted(by: { $0.id < $1.id }) { sorted.append(row) }
        return sorted
    }
}
