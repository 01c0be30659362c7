import MockHTTP
import MockSupport

/// Where a row sits in an API's seed document: the array member holding it, the field that
/// identifies it there, and its value; nested rows (a cse118 message inside its channel inside
/// its workspace) have one step per level. A step without a key field names a whole member
/// (`next_ids`), replaced as one.
public struct RowPath: Hashable, Sendable {
    public struct Step: Hashable, Sendable {
        public var member: String
        public var keyField: String?
        public var key: RowKey?
    }

    public var steps: [Step]

    /// A row of a top-level array, e.g. `.row("messages", "message_id", .int(5))`.
    public static func row(_ member: String, _ keyField: String, _ key: RowKey) -> RowPath {
        RowPath(steps: [Step(member: member, keyField: keyField, key: key)])
    }

    /// A whole top-level member, e.g. `.member("next_ids")`.
    public static func member(_ member: String) -> RowPath {
        RowPath(steps: [Step(member: member, keyField: nil, key: nil)])
    }

    /// A row nested in this one.
    public func row(_ member: String, _ keyField: String, _ key: RowKey) -> RowPath {
        RowPath(steps: steps + [Step(member: member, keyField: keyField, key: key)])
    }
}

/// The value of a row's key field: seed documents use integers and strings.
public enum RowKey: Hashable, Sendable {
    case int(Int)
    case string(String)

    init?(_ value: JSONValue) {
        guard let key = value.intValue.map(RowKey.int) ?? value.stringValue.map(RowKey.string) else { return nil }
        self = key
    }
}

/// What a request changed in an API's state, collected from its tables (`StoredState.takeChanges`)
/// and taken by its store after each change: the rows touched (written as they are afterwards, so a
/// record costs the size of the change) or, after a reset or a load, the whole state.
public struct StateChanges: Sendable {
    public private(set) var paths: [RowPath] = []
    private var seen: Set<RowPath> = []
    public private(set) var wholeState = false

    public var isEmpty: Bool { paths.isEmpty && !wholeState }

    /// The row at `path` was added, changed or removed.
    public mutating func touch(_ path: RowPath) {
        if !wholeState, seen.insert(path).inserted { paths.append(path) }
    }

    /// Everything changed (a reset, a loaded document).
    public mutating func touchEverything() {
        wholeState = true
        paths = []
        seen = []
    }
}

/// A state that can say what changed in seed-format terms: the store turns each change into one
/// record of the `--state` log, and replaying the records over the last snapshot gives the state
/// back. A `StoredState` (rows in `Table`s) does both by itself.
public protocol LoggedState {
    /// What changed since the last call, which forgets it.
    mutating func takeChanges() -> StateChanges
    /// The row at `path` as the seed document writes it, or nil when there is none any more.
    func seedRow(at path: RowPath) -> [UInt8]?
}

/// One record of the log: an API's change in seed format.
enum ChangeRecord {
    /// `{"api":"threads","rows":[{"at":[["messages","message_id",5]],"row":{…}|null},…]}`.
    static func encode<State: LoggedState>(_ changes: StateChanges, of api: String, in state: State) -> [UInt8] {
        var writer = start(api)
        writer.key("rows")
        writer.beginArray()
        for path in changes.paths {
            writer.beginObject()
            writer.key("at")
            writer.beginArray()
            for step in path.steps {
                writer.beginArray()
                writer.string(step.member)
                if let keyField = step.keyField, let key = step.key {
                    writer.string(keyField)
                    switch key {
                    case let .int(number): writer.int(number)
                    case let .string(text): writer.string(text)
                    }
                }
                writer.endArray()
            }
            writer.endArray()
            writer.key("row")
            if let row = state.seedRow(at: path) { writer.raw(row) } else { writer.null() }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// `{"api":"threads","state":{…}}`, after a reset or a load.
    static func encode(wholeState document: [UInt8], of api: String) -> [UInt8] {
        var writer = start(api)
        writer.key("state")
        writer.raw(document)
        writer.endObject()
        return writer.bytes
    }

    private static func start(_ api: String) -> JSONWriter {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        writer.key("api")
        writer.string(api)
        return writer
    }
}
