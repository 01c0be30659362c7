import MockHTTP
import MockSupport

/// A state kept in `Table`s (and `Recorded` values), read from and written to its seed document by
/// one `SeedFormat`: the seed file, `PUT /_mock/state/{api}`, `GET /_mock/state/{api}`, the
/// `--state` snapshot and each record of its log all go through it, so a row that can be read can
/// be written, and every change a table notes reaches the log.
public protocol StoredState: LoggedState {
    /// An empty state, which a document is read into.
    init()
    /// The members of the seed document, in the order they are read and written.
    static var format: SeedFormat<Self> { get }
    /// Called once a document is read, for what the rows imply (e.g. the next ids); a problem
    /// found here refuses the document.
    mutating func finishReading() throws(SeedError)
}

extension StoredState {
    public mutating func finishReading() throws(SeedError) {}

    /// Reads and checks a seed or state document.
    public init(seed document: SeedJSON) throws(SeedError) {
        try self.init(seed: document, into: Self())
    }

    /// The same, into `empty`: a state made with what reading needs (a clock, a folder of files).
    public init(seed document: SeedJSON, into empty: Self) throws(SeedError) {
        self = empty
        try Self.format.read(document, into: &self)
    }

    /// Each table's rows, in the document's order; live tokens are told apart (`KeptTokens`).
    public var tableCounts: TableCounts {
        TableCounts(Self.format.members.filter { $0.name != "tokens" }.compactMap { member in
            member.rowCount(self).map { TableCounts.Count(table: member.name, rows: $0) }
        })
    }

    /// The state as its seed document.
    public var seedDocument: [UInt8] {
        Self.format.document(of: self)
    }

    public mutating func takeChanges() -> StateChanges {
        var changes = StateChanges()
        for member in Self.format.members {
            for path in member.takeChanges(&self) { changes.touch(path) }
        }
        return changes
    }

    public func seedRow(at path: RowPath) -> [UInt8]? {
        guard let step = path.steps.first, let member = Self.format.members.first(where: { $0.name == step.member }) else { return nil }
        return member.row(self, path)
    }
}

/// A member of a seed document that is one object rather than rows (threads' `next_ids`): its
/// changes are noted whenever it is set.
public struct Recorded<Value: SeedRow> {
    public var value: Value {
        didSet { if isRecording { changed = true } }
    }
    var changed = false
    var isRecording = true

    public init(_ value: Value) {
        self.value = value
    }
}

/// How a state's members sit in its seed document, in order.
public struct SeedFormat<State: StoredState>: Sendable {
    let members: [SeedMember<State>]

    public init(_ members: SeedMember<State>...) {
        self.members = members
    }

    func read(_ document: SeedJSON, into state: inout State) throws(SeedError) {
        for member in members { member.setRecording(&state, false) }
        try document.read { root throws(SeedError) in
            let fields = try SeedFields(&root)
            for member in members where member.isRequired || fields.has(member.name) {
                try fields.value(member.name) { value throws(SeedError) in try member.read(&state, &value) }
            }
        }
        try state.finishReading()
        for member in members { member.setRecording(&state, true) }
    }

    func document(of state: State) -> [UInt8] {
        var writer = SeedFieldWriter(JSONWriter(escapeSlash: false))
        writer.json.beginObject()
        for member in members {
            writer.json.key(member.name)
            member.write(state, &writer)
        }
        writer.json.endObject()
        return writer.json.bytes
    }
}

/// Why a row is refused, at the row or at one of its fields.
public struct SeedProblem {
    @usableFromInline let field: String?
    @usableFromInline let problem: String

    /// `$.threads[3]: user_id 44 is not a user`
    public static func row(_ problem: String) -> SeedProblem { SeedProblem(field: nil, problem: problem) }
    /// `$.tweets[2].username: c is not a user`
    public static func field(_ name: String, _ problem: String) -> SeedProblem { SeedProblem(field: name, problem: problem) }

    @usableFromInline
    func error(in fields: SeedFields) -> SeedError {
        field.map { fields.fail($0, problem) } ?? fields.fail(problem)
    }
}

/// Where a row sits against the duplicate of an earlier one: the error names the row
/// (`$.users[3]: duplicate email a@x.com`) or the field (`$.users[3].username: duplicate …`), or
/// the field for a repeated key and the row for a repeated unique value (cse118's members).
public enum DuplicateReport: Sendable {
    case atRow
    case atField
    case keyAtField
}

/// One member of a seed document: a table's rows or one recorded object.
/// Unchecked: it holds only closures over key paths (immutable, but not marked `Sendable`).
public struct SeedMember<State>: @unchecked Sendable {
    let name: String
    let isRequired: Bool
    let read: (inout State, inout SeedReader) throws(SeedError) -> Void
    let write: (State, inout SeedFieldWriter) -> Void
    let setRecording: (inout State, Bool) -> Void
    let takeChanges: (inout State) -> [RowPath]
    /// The row at a path (its first step this member), or the whole member, in seed format; nil
    /// when there is none.
    let row: (State, RowPath) -> [UInt8]?
    /// How many rows a table member holds; nil for one object.
    let rowCount: (State) -> Int?

    @usableFromInline
    init(name: String, isRequired: Bool, read: @escaping (inout State, inout SeedReader) throws(SeedError) -> Void,
         write: @escaping (State, inout SeedFieldWriter) -> Void, setRecording: @escaping (inout State, Bool) -> Void,
         takeChanges: @escaping (inout State) -> [RowPath], row: @escaping (State, RowPath) -> [UInt8]?,
         rowCount: @escaping (State) -> Int?) {
        (self.name, self.isRequired, self.read, self.write) = (name, isRequired, read, write)
        (self.setRecording, self.takeChanges, self.row, self.rowCount) = (setRecording, takeChanges, row, rowCount)
    }

    /// An array of rows kept in the table at `path`. `order` is the order rows are kept and
    /// written in (a seed in another order is sorted as it loads); `check` refuses a row the rest
    /// of the state contradicts (its user is not a user), before a duplicate key is looked for.
    /// `check` only reads the state: it gets it `inout` so that the state is not copied for every
    /// row (a copy retains and releases every table's storage: a third of a large seed's reading).
    /// Inlinable, so that reading and writing rows is compiled for the API's own row type.
    @inlinable
    public static func table<Row: TableRow>(_ name: String, _ path: WritableKeyPath<State, Table<Row>>, optional: Bool = false,
                                            order: ((Row, Row) -> Bool)? = nil, duplicates: DuplicateReport = .atRow,
                                            check: ((Row, inout State) -> SeedProblem?)? = nil) -> SeedMember {
        SeedMember(name: name, isRequired: !optional, read: { state, array throws(SeedError) in
            state[keyPath: path].reserveCapacity(state[keyPath: path].count + (try array.count()))
            try array.objects { fields throws(SeedError) in
                let row = try Row(seed: fields)
                if let problem = check?(row, &state) { throw problem.error(in: fields) }
                if let conflict = state[keyPath: path].insert(row) {
                    let (field, value) = conflict.described(row)
                    let problem = "duplicate \(field) \(value)"
                    switch (duplicates, conflict) {
                    case (.atRow, _), (.keyAtField, .index): throw fields.fail(problem)
                    case (.atField, _), (.keyAtField, .key): throw fields.fail(field, problem)
                    }
                }
            }
            if let order, !state[keyPath: path].rows.isSorted(by: order) { state[keyPath: path].sort(by: order) }
        }, write: { state, writer in
            let table = state[keyPath: path]
            writer.json.beginArray()
            if let order, !table.rows.isSorted(by: order) {
                for row in table.rows.sorted(by: order) { writer.object(row) }
            } else {
                for row in table.rows { writer.object(row) }
            }
            writer.json.endArray()
        }, setRecording: { state, on in
            state[keyPath: path].isRecording = on
        }, takeChanges: { state in
            state[keyPath: path].takeChanges().map { RowPath.row(name, Row.keyField, $0.rowKey) }
        }, row: { state, at in
            at.steps.first?.key.flatMap(Row.Key.init(rowKey:)).flatMap { state[keyPath: path][$0] }?.seedJSON
        }, rowCount: { state in state[keyPath: path].count })
    }

    /// One object kept in the `Recorded` value at `path`; when optional and absent, the value the
    /// empty state has.
    public static func value<Value>(_ name: String, _ path: WritableKeyPath<State, Recorded<Value>>, optional: Bool = false) -> SeedMember {
        SeedMember(name: name, isRequired: !optional, read: { state, object throws(SeedError) in
            state[keyPath: path].value = try Value(seed: SeedFields(&object))
        }, write: { state, writer in
            writer.object(state[keyPath: path].value)
        }, setRecording: { state, on in
            state[keyPath: path].isRecording = on
        }, takeChanges: { state in
            guard state[keyPath: path].changed else { return [] }
            state[keyPath: path].changed = false
            return [RowPath.member(name)]
        }, row: { state, _ in
            state[keyPath: path].value.seedJSON
        }, rowCount: { _ in nil })
    }
}

extension SeedMember {
    /// A member the state reads and writes itself and that requests never change (InternProducts'
    /// products): it is in the document, never in a change record.
    public static func fixed(_ name: String, read: @escaping (inout State, inout SeedReader) throws(SeedError) -> Void,
                             rows: @escaping (State) -> [any SeedRow]) -> SeedMember {
        SeedMember(name: name, isRequired: true, read: read, write: { state, writer in
            writer.json.beginArray()
            for row in rows(state) { writer.object(row) }
            writer.json.endArray()
        }, setRecording: { _, _ in }, takeChanges: { _ in [] }, row: { _, _ in nil }, rowCount: { rows($0).count })
    }
}

extension SeedMember {
    /// A member the state reads, writes and records itself, for a shape the others do not cover:
    /// cse118's workspaces, whose channels and messages sit nested in them and in tables of their
    /// own. `takeChanges` gives the paths of the rows its tables noted (a nested row's path names
    /// its parents), and `row` writes the row at such a path, or the whole member for a path
    /// without a key.
    public static func custom(_ name: String, optional: Bool = false,
                              read: @escaping (inout State, inout SeedReader) throws(SeedError) -> Void,
                              write: @escaping (State, inout SeedFieldWriter) -> Void,
                              setRecording: @escaping (inout State, Bool) -> Void,
                              takeChanges: @escaping (inout State) -> [RowPath],
                              row: @escaping (State, RowPath) -> [UInt8]?,
                              rowCount: @escaping (State) -> Int?) -> SeedMember {
        SeedMember(name: name, isRequired: !optional, read: read, write: write, setRecording: setRecording,
                   takeChanges: takeChanges, row: row, rowCount: rowCount)
    }
}

extension Table {
    /// Turns noting changes on or off (off while a document is read, which is no change).
    public mutating func record(_ on: Bool) {
        isRecording = on
    }
}

extension Table.Conflict {
    /// The field and value a duplicate is named by.
    @usableFromInline
    func described(_ row: Row) -> (field: String, value: String) {
        switch self {
        case .key: (Row.keyField, row.key.description)
        case let .index(field, value): (field, value)
        }
    }
}

extension SeedFieldWriter {
    @inlinable
    mutating func object(_ row: some SeedRow) {
        json.beginObject()
        row.write(to: &self)
        json.endObject()
    }
}

extension Sequence {
    @inlinable
    func isSorted(by order: (Element, Element) -> Bool) -> Bool {
        var previous: Element?
        for element in self {
            if let previous, order(element, previous) { return false }
            previous = element
        }
        return true
    }
}
