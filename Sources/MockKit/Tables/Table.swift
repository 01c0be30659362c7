import Foundation

/// The value of a row's key field, as the state log writes it.
public protocol SeedKey: Hashable, CustomStringConvertible {
    var rowKey: RowKey { get }
    init?(rowKey: RowKey)
}

extension Int: SeedKey {
    public var rowKey: RowKey { .int(self) }
    public init?(rowKey: RowKey) {
        guard case let .int(value) = rowKey else { return nil }
        self = value
    }
}

extension ExactText: SeedKey {
    public var rowKey: RowKey { .string(string) }
    public init?(rowKey: RowKey) {
        guard case let .string(value) = rowKey else { return nil }
        self.init(value)
    }
}

/// A row of a `Table`: a seed-document object with a key field no two rows share.
public protocol TableRow: SeedRow {
    associatedtype Key: SeedKey
    /// The key's field in the seed document, e.g. `message_id`.
    static var keyField: String { get }
    var key: Key { get }
}

/// A value an index files rows under: a text compared byte for byte, a number, or a UUID.
@usableFromInline
enum IndexKey: Hashable {
    case text(ExactText)
    case number(Int)
    case uuid(UUID)
}

/// A lookup a table keeps besides its key: rows by one field's value, either unique (a second row
/// with the same value is refused) or grouped (all rows with that value, in table order). A row
/// whose optional field is nil is not filed. The field's value is given as a function, usually a
/// key path (`\.email`): as a function it compiles to a plain read of the field, where a `KeyPath`
/// value is looked through at run time for every row.
public struct TableIndex<Row> {
    /// The field in the seed document: the name lookups give, and the error a duplicate gets.
    public let field: String
    @usableFromInline let isUnique: Bool
    /// The key a row is filed under, nil for none.
    @usableFromInline let value: (Row) -> IndexKey?
    /// What a looked-up text is compared as (a unique index's fold).
    @usableFromInline let fold: (String) -> String
    /// The field's value as written, for the error a duplicate gets.
    @usableFromInline let text: (Row) -> String
    /// A unique index's slot for each value.
    @usableFromInline var slotByValue: [IndexKey: Int] = [:]
    /// A grouped index's slots for each value, in order.
    @usableFromInline var slotsByValue: [IndexKey: [Int]] = [:]

    /// Rows by a text field compared byte for byte after `folding` (e.g. `{ $0.lowercased() }` where
    /// the real server compared emails in any letter case).
    public static func unique(_ value: @escaping (Row) -> String, field: String,
                              folding fold: @escaping @Sendable (String) -> String = { $0 }) -> TableIndex {
        TableIndex(field: field, isUnique: true, value: { .text(ExactText(fold(value($0)))) }, fold: fold, text: value)
    }

    /// Rows by an optional text field, byte for byte; rows without one are not filed (WSUV's
    /// session tokens: one per logged-in user).
    public static func unique(_ value: @escaping (Row) -> String?, field: String) -> TableIndex {
        TableIndex(field: field, isUnique: true, value: { value($0).map { .text(ExactText($0)) } },
                   fold: { $0 }, text: { value($0) ?? "" })
    }

    /// All rows whose number field has one value, in the table's order (a thread's messages).
    public static func grouped(_ value: @escaping (Row) -> Int, field: String) -> TableIndex {
        TableIndex(field: field, isUnique: false, value: { .number(value($0)) }, fold: { $0 }, text: { "\(value($0))" })
    }

    /// All rows whose text field has one value, byte for byte, in the table's order.
    public static func grouped(_ value: @escaping (Row) -> String, field: String) -> TableIndex {
        TableIndex(field: field, isUnique: false, value: { .text(ExactText(value($0))) }, fold: { $0 }, text: value)
    }

    /// All rows whose UUID field has one value (a channel's messages, by their channel's id), in
    /// the table's order.
    public static func grouped(_ value: @escaping (Row) -> UUID, field: String) -> TableIndex {
        TableIndex(field: field, isUnique: false, value: { .uuid(value($0)) }, fold: { $0 }, text: { value($0).uuidString })
    }

    /// The slots filed under a value, in order.
    @inlinable func slots(for key: IndexKey) -> [Int] {
        isUnique ? slotByValue[key].map { [$0] } ?? [] : slotsByValue[key] ?? []
    }

    /// Files a row's slot, after every slot filed before it; false, and nothing filed, when the
    /// index is unique and another row has the value. One lookup either way.
    @inlinable mutating func file(_ slot: Int, of row: Row) -> Bool {
        guard let key = value(row) else { return true }
        guard isUnique else {
            slotsByValue[key, default: []].append(slot)
            return true
        }
        guard let other = slotByValue.updateValue(slot, forKey: key) else { return true }
        slotByValue[key] = other
        return false
    }

    @inlinable mutating func unfile(_ slot: Int, of row: Row) {
        guard let key = value(row) else { return }
        if isUnique {
            slotByValue[key] = nil
        } else if var group = slotsByValue.removeValue(forKey: key) {
            // Searched from the end: rows removed last first (a channel's messages) cost O(1) each.
            if let place = group.lastIndex(of: slot) { group.remove(at: place) }
            if !group.isEmpty { slotsByValue[key] = group }
        }
    }

    /// Files a changed row's slot under its new value, in slot order; false when that value is
    /// unique and taken.
    @inlinable mutating func refile(_ slot: Int, from old: Row, to new: Row) -> Bool {
        let (before, after) = (value(old), value(new))
        guard before != after else { return true }
        if isUnique, let after, slotByValue[after] != nil { return false }
        unfile(slot, of: old)
        guard let after else { return true }
        if isUnique {
            slotByValue[after] = slot
        } else {
            var group = slotsByValue.removeValue(forKey: after) ?? []
            group.insert(slot, at: group.firstIndex { $0 > slot } ?? group.count)
            slotsByValue[after] = group
        }
        return true
    }

    @inlinable mutating func reserveCapacity(_ count: Int) {
        if isUnique { slotByValue.reserveCapacity(count) } else { slotsByValue.reserveCapacity(count) }
    }

    @inlinable mutating func removeAll(keepingCapacity: Int) {
        slotByValue = [:]
        slotsByValue = [:]
        if isUnique { slotByValue.reserveCapacity(keepingCapacity) }
    }
}

/// Rows kept in order (the seed's, then each new one last), found by key in O(1) and by the
/// indexes the table was made with. Every insert, update and removal is noted by key, which is
/// how a change reaches the `--state` log: the store asks the state's `SeedFormat` for what
/// changed after each request, so no API writes a change record by hand.
public struct Table<Row: TableRow> {
    /// Rows in order; a removed row leaves nil until more than half are gone.
    @usableFromInline var slots: [Row?] = []
    @usableFromInline var slotByKey: [Row.Key: Int] = [:]
    @usableFromInline var indexes: [TableIndex<Row>]
    @usableFromInline var rowCount = 0
    @inlinable public var count: Int { rowCount }
    /// Keys inserted, updated or removed since `takeChanges`, first change first.
    @usableFromInline var changed: [Row.Key] = []
    @usableFromInline var changedKeys: Set<Row.Key> = []
    /// Of those, the keys whose first change inserted the row: rows a document written before
    /// the changes does not hold.
    @usableFromInline var newKeys: Set<Row.Key> = []
    /// The rows removed since `takeChanges`, for what they held (a nested row's parent).
    @usableFromInline var removedRows: [Row.Key: Row] = [:]
    /// Off while a seed document is read, which is no change.
    @usableFromInline var isRecording = true

    public init(indexes: [TableIndex<Row>] = []) {
        self.indexes = indexes
    }

    /// Why an insert was refused: another row has its key, or its value in a unique index.
    public enum Conflict: Equatable {
        case key
        /// The index's field and the row's value of it, as written.
        case index(field: String, value: String)
    }

    // MARK: Reading

    @inlinable public var isEmpty: Bool { count == 0 }

    /// Every row, in order.
    @inlinable public var rows: LazyMapSequence<LazyFilterSequence<[Row?]>, Row> {
        slots.lazy.filter { $0 != nil }.map { $0! }
    }

    /// The last row in order.
    @inlinable public var last: Row? { slots.last { $0 != nil } ?? nil }

    @inlinable public subscript(key: Row.Key) -> Row? {
        slotByKey[key].flatMap { slots[$0] }
    }

    @inlinable public func contains(_ key: Row.Key) -> Bool {
        slotByKey[key] != nil
    }

    /// The row whose `field` (a unique index's) is `value`, folded as the index folds.
    @inlinable public func row(where field: String, is value: String) -> Row? {
        let index = indexes[index(of: field)]
        return index.slots(for: .text(ExactText(index.fold(value)))).first.flatMap { slots[$0] }
    }

    /// The rows whose `field` (a grouped index's) is `value`, in order.
    @inlinable public func rows(where field: String, is value: Int) -> [Row] {
        indexes[index(of: field)].slots(for: .number(value)).compactMap { slots[$0] }
    }

    /// The rows whose `field` (a grouped index's) is `value`, byte for byte, in order.
    @inlinable public func rows(where field: String, is value: String) -> [Row] {
        indexes[index(of: field)].slots(for: .text(ExactText(value))).compactMap { slots[$0] }
    }

    /// The rows whose UUID `field` (a grouped index's) is `value`, in order.
    @inlinable public func rows(where field: String, is value: UUID) -> [Row] {
        indexes[index(of: field)].slots(for: .uuid(value)).compactMap { slots[$0] }
    }

    /// How many rows have `value` in their UUID `field` (a grouped index's), in O(1).
    @inlinable public func count(where field: String, is value: UUID) -> Int {
        indexes[index(of: field)].slotsByValue[.uuid(value)]?.count ?? 0
    }

    @inlinable func index(of field: String) -> Int {
        guard let found = indexes.firstIndex(where: { $0.field == field }) else {
            preconditionFailure("the table has no index on \(field)")
        }
        return found
    }

    // MARK: Changing

    /// Adds a row last; refused, and nothing changes, when its key or a unique value is taken.
    @discardableResult
    @inlinable public mutating func insert(_ row: Row) -> Conflict? {
        // Filed under its key and values first, one lookup each, and taken back on a conflict.
        let slot = slots.count
        if let other = slotByKey.updateValue(slot, forKey: row.key) {
            slotByKey[row.key] = other
            return .key
        }
        for index in indexes.indices {
            guard indexes[index].file(slot, of: row) else {
                for filed in indexes.indices[..<index] { indexes[filed].unfile(slot, of: row) }
                slotByKey[row.key] = nil
                return .index(field: indexes[index].field, value: indexes[index].text(row))
            }
        }
        slots.append(row)
        rowCount += 1
        if isRecording, !changedKeys.contains(row.key) { newKeys.insert(row.key) }
        noteChange(row.key)
        return nil
    }

    /// Changes the row with this key in place; nil when there is none. The key must stay.
    @discardableResult
    @inlinable public mutating func update<Result>(_ key: Row.Key, _ change: (inout Row) -> Result) -> Result? {
        guard let slot = slotByKey[key], let old = slots[slot] else { return nil }
        var row = old
        let result = change(&row)
        precondition(row.key == key, "Table.update changed a row's key")
        for index in indexes.indices {
            guard indexes[index].refile(slot, from: old, to: row) else { preconditionFailure("Table.update took a unique value twice") }
        }
        slots[slot] = row
        noteChange(key)
        return result
    }

    @discardableResult
    @inlinable public mutating func remove(_ key: Row.Key) -> Row? {
        guard let slot = slotByKey.removeValue(forKey: key), let row = slots[slot] else { return nil }
        slots[slot] = nil
        for index in indexes.indices { indexes[index].unfile(slot, of: row) }
        rowCount -= 1
        if isRecording { removedRows[key] = row }
        noteChange(key)
        if slots.count > 32, count * 2 < slots.count { pack() }
        return row
    }

    /// Makes room for `count` rows in all, so that filling the table does not grow its lookups
    /// step by step (each step hashes every key again).
    @inlinable public mutating func reserveCapacity(_ count: Int) {
        slots.reserveCapacity(count)
        slotByKey.reserveCapacity(count)
        for index in indexes.indices { indexes[index].reserveCapacity(count) }
    }

    /// Puts the rows in `order` (a seed read in another order, or rows appended out of it).
    @inlinable mutating func sort(by order: (Row, Row) -> Bool) {
        let sorted = rows.sorted(by: order)
        slots = sorted
        rebuildLookups()
    }

    /// Drops the slots of removed rows.
    @inlinable mutating func pack() {
        slots = slots.filter { $0 != nil }
        rebuildLookups()
    }

    @inlinable mutating func rebuildLookups() {
        slotByKey = Dictionary(minimumCapacity: slots.count)
        for index in indexes.indices { indexes[index].removeAll(keepingCapacity: slots.count) }
        for (slot, row) in slots.enumerated() {
            guard let row else { continue }
            slotByKey[row.key] = slot
            for index in indexes.indices { _ = indexes[index].file(slot, of: row) }
        }
    }

    // MARK: Changes for the state log

    @inlinable mutating func noteChange(_ key: Row.Key) {
        guard isRecording, changedKeys.insert(key).inserted else { return }
        changed.append(key)
    }

    /// The keys changed since the last call, first change first, now forgotten.
    @inlinable public mutating func takeChanges() -> [Row.Key] {
        takeChangedRows().map(\.key)
    }

    /// A changed row: its key, the row now (nil once removed), the row as it was removed (the
    /// last time, if it was), and whether a document written before the change lacks it.
    public struct Change {
        public let key: Row.Key
        public let row: Row?
        public let removed: Row?
        public let isNew: Bool

        @inlinable init(key: Row.Key, row: Row?, removed: Row?, isNew: Bool) {
            (self.key, self.row, self.removed, self.isNew) = (key, row, removed, isNew)
        }
    }

    /// The rows changed since the last call, first change first, now forgotten.
    @inlinable public mutating func takeChangedRows() -> [Change] {
        guard !changed.isEmpty else { return [] }
        defer {
            changed = []
            changedKeys = []
            newKeys = []
            removedRows = [:]
        }
        return changed.map { Change(key: $0, row: self[$0], removed: removedRows[$0], isNew: newKeys.contains($0)) }
    }
}
