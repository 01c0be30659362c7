import MockHTTP
import MockSupport

/// The `--state` file: a snapshot, then the change log (docs/admin.md#state-that-survives---state-file).
///
///     {"threads":{…seed document…},"wsuv":{…},…}
///     ~1c291ca3 {"api":"threads","rows":[{"at":[["messages","message_id",7]],"row":{…}}]}
///     ~9a0f33e1 {"api":"wsuv","state":{…}}
///
/// A record is one line: `~`, the CRC-32 of its JSON chained from the record before (the first
/// from 0), a space, the JSON. A newline followed by `~` never occurs inside JSON, so the first one
/// ends the snapshot. A record cut short or off the chain ends the log (a write a crash interrupted,
/// never acknowledged), unless whole records follow it: then the file was damaged in the middle and
/// the start is refused. The server never leaves an empty file, so an empty one is refused too.
struct StateFileContents {
    /// Each API's document after the log, as text, in the snapshot's order (APIs first seen in the
    /// log last).
    var documents: [(api: String, document: SeedJSON)] = []
    var snapshotLength = 0
    /// Where the last whole record ends: appending starts here.
    var validLength = 0
    /// The checksum of the last whole record (0 when there is none).
    var chain: UInt32 = 0
    var records = 0
    /// Bytes after the last whole record, dropped.
    var droppedLength = 0
    /// The whole part ends a line, so a record can follow it.
    private var wholePartEndsLine = false

    static let recordMark = UInt8(ascii: "~")
    /// Nesting allowed in the snapshot and in a record.
    static let maxDepth = 64

    /// Reads a whole file; only an unreadable snapshot is an error.
    init(_ bytes: [UInt8], file: String) throws(SeedError) {
        guard bytes.contains(where: { !Self.isSpace($0) }) else {
            throw SeedError(file: file, path: "$", problem: "the file is empty; mock-backend never leaves an empty state file"
                + " (it writes a new one beside it and renames it into place), so another program made or emptied it."
                + " Remove it to start from the seed, or give another --state FILE")
        }
        let snapshotEnd = Self.snapshotEnd(in: bytes)
        snapshotLength = snapshotEnd
        if !bytes[0..<snapshotEnd].allSatisfy(Self.isSpace) {
            documents = try Self.members(of: bytes[0..<snapshotEnd], file: file)
        }
        var replays: [String: DocumentReplay] = [:]
        var offset = snapshotEnd
        validLength = snapshotEnd
        while offset < bytes.count, let record = Self.record(in: bytes, at: offset, after: chain) {
            let name = record.api
            if replays[name] == nil {
                let index = documents.firstIndex { $0.api == name } ?? documents.endIndex
                if index == documents.endIndex { documents.append((name, SeedJSON(Array("{}".utf8)))) }
                replays[name] = DocumentReplay(documents[index].document)
            }
            replays[name]!.apply(record.change)
            chain = record.checksum
            offset = record.end
            validLength = offset
            records += 1
        }
        if offset < bytes.count, let damaged = Self.wholeRecordAfter(bytes, from: offset) {
            let line = bytes[0..<offset].reduce(1) { $1 == 10 ? $0 + 1 : $0 }
            throw SeedError(file: "\(file):\(line)", path: "$",
                            problem: "record \(records + 1) of the log (line \(line)) is damaged: it does not check against the"
                                + " record before it, yet whole records follow it (line \(damaged)), so it is no write cut short"
                                + " by a crash. The file is left as it is: restore it from a copy, or remove that line and every"
                                + " one after it to start with the changes before it")
        }
        droppedLength = bytes.count - validLength
        wholePartEndsLine = validLength > 0 && bytes[validLength - 1] == 10
        for index in documents.indices {
            if let replay = replays[documents[index].api] {
                documents[index].document = SeedJSON(replay.text, maxDepth: Self.maxDepth)
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 32 || byte == 10 || byte == 13 || byte == 9
    }

    /// The line number of the first record line after `offset` that checks against the record
    /// line before it (its checksum chained from the one that line gives): proof that whole
    /// records were written after the damage at `offset`, which a torn last write never leaves.
    private static func wholeRecordAfter(_ bytes: [UInt8], from offset: Int) -> Int? {
        var line = bytes[0..<offset].reduce(1) { $1 == 10 ? $0 + 1 : $0 }
        var start = offset
        var previous: UInt32?
        while start < bytes.count, let newline = bytes[start...].firstIndex(of: 10) {
            if let previous, record(in: bytes, at: start, after: previous) != nil { return line }
            previous = statedChecksum(bytes, at: start, end: newline)
            start = newline + 1
            line += 1
        }
        return nil
    }

    /// The checksum a record line gives, whatever its JSON.
    private static func statedChecksum(_ bytes: [UInt8], at offset: Int, end: Int) -> UInt32? {
        guard end - offset > 10, bytes[offset] == recordMark, bytes[offset + 9] == 32 else { return nil }
        return UInt32(String(decoding: bytes[(offset + 1)..<(offset + 9)], as: UTF8.self), radix: 16)
    }

    /// The snapshot's members, each API's part of the text as it is: checked, but not built into
    /// a tree (the API reads its rows straight from it).
    private static func members(of snapshot: ArraySlice<UInt8>, file: String) throws(SeedError) -> [(api: String, document: SeedJSON)] {
        let members: [(key: String, range: Range<Int>)]?
        do {
            members = try JSONPieces.members(of: snapshot, maxDepth: maxDepth)
        } catch {
            // Only the text can be wrong. The snapshot starts the file, so the offset is the file's own.
            let syntax = error.syntaxError ?? JSONParseError(error.problem, at: 0)
            let place = SourceLocation(file: file, offset: syntax.offset, in: Array(snapshot))
            throw SeedError(file: place.description, path: "$",
                            problem: "not a state file (\(syntax.message)); move it away or give another --state FILE")
        }
        guard let members else {
            throw SeedError(file: file, path: "$", problem: "not a state file: expected an object with one member per API")
        }
        return members.map { ($0.key, SeedJSON(snapshot[$0.range], maxDepth: maxDepth)) }
    }

    /// Records can follow the whole part as it is (a torn tail is cut first): the snapshot holds
    /// every served API (one missing would replay its records over nothing). A long log is
    /// appended to as well, and compacted once the server runs: a start must not need room for a
    /// second copy.
    func isAppendable(serving apis: [String]) -> Bool {
        snapshotLength > 0 && wholePartEndsLine && apis.allSatisfy { api in documents.contains { $0.api == api } }
    }

    /// The first `\n~`, or the first `\n` followed by NUL, or the end. NUL is never JSON: it is
    /// what a power loss can leave where the first record was being appended (the length written,
    /// the data not), a torn record like any other.
    private static func snapshotEnd(in bytes: [UInt8]) -> Int {
        var index = 0
        while let newline = bytes[index...].firstIndex(of: 10) {
            if newline + 1 < bytes.count, bytes[newline + 1] == recordMark || bytes[newline + 1] == 0 { return newline + 1 }
            index = newline + 1
        }
        return bytes.count
    }

    /// The record line at `offset` when it is whole and follows the chain.
    private static func record(in bytes: [UInt8], at offset: Int,
                               after chain: UInt32) -> (api: String, change: JSONObject, checksum: UInt32, end: Int)? {
        guard let newline = bytes[offset...].firstIndex(of: 10),
              let checksum = statedChecksum(bytes, at: offset, end: newline) else { return nil }
        let json = bytes[(offset + 10)..<newline]
        guard CRC32.checksum(json, continuing: chain) == checksum,
              case let .object(change)? = try? JSONParser.parse(json, maxDepth: maxDepth),
              let api = change["api"]?.stringValue else { return nil }
        return (api, change, checksum, newline + 1)
    }

    /// One record line for `json`, chained from `chain`.
    static func line(_ json: [UInt8], after chain: UInt32) -> (bytes: [UInt8], checksum: UInt32) {
        let checksum = CRC32.checksum(json, continuing: chain)
        var hex = Array(String(checksum, radix: 16).utf8)
        hex.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: 8 - hex.count), at: 0)
        // Appended part by part: one `+` chain of literals and arrays took Swift 6.0 5 s to type-check.
        var bytes: [UInt8] = [recordMark]
        bytes += hex
        bytes.append(32)
        bytes += json
        bytes.append(10)
        return (bytes, checksum)
    }

    /// The snapshot line: every API's seed document in one object, then a newline.
    static func snapshot(_ documents: [(api: String, document: [UInt8])]) -> [UInt8] {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        for (api, document) in documents {
            writer.key(api)
            writer.raw(document)
        }
        writer.endObject()
        return writer.bytes + [10]
    }
}

/// One API's document with log records applied to it, kept as the snapshot's text wherever no
/// record touched it: a top-level array a record changes is split into its rows' texts, indexed by
/// key once, and only the rows the records give (or nest into) are values. Replaying a log costs a
/// scan of the arrays it touches and the size of its records, and builds no tree of the rest.
struct DocumentReplay {
    /// A part of the document: text as the snapshot holds it, or a value from a record.
    private enum Piece {
        case text(ArraySlice<UInt8>)
        case value(JSONValue)

        var value: JSONValue {
            switch self {
            // Checked when the snapshot was read.
            case let .text(bytes): return (try? JSONParser.parse(bytes, maxDepth: .max)) ?? .null
            case let .value(value): return value
            }
        }

        func write(to writer: inout JSONWriter) {
            switch self {
            case let .text(bytes): writer.raw(bytes)
            case let .value(value): writer.value(value)
            }
        }
    }

    private var members: [(key: String, value: Piece)]
    private var keyedArrays: [String: KeyedRows] = [:]

    private struct KeyedRows {
        var rows: [Piece?]
        var slotOfKey: [RowKey: Int]
    }

    init(_ document: SeedJSON) {
        let bytes = document.bytes
        members = ((try? JSONPieces.members(of: bytes, maxDepth: .max)) ?? nil)?.map { ($0.key, .text(bytes[$0.range])) } ?? []
    }

    /// Applies one record: `{"state":{…}}` or `{"rows":[{"at":[…],"row":…},…]}`.
    mutating func apply(_ record: JSONObject) {
        if let whole = record["state"] {
            members = (whole.objectValue?.members ?? []).map { ($0.key, .value($0.value)) }
            keyedArrays = [:]
            return
        }
        for change in record["rows"]?.arrayValue ?? [] {
            guard let object = change.objectValue, let steps = object["at"]?.arrayValue.flatMap(Self.steps),
                  let first = steps.first else { continue }
            let row = object["row"].flatMap { $0.isNull ? nil : $0 }
            guard let keyField = first.keyField, let key = first.key else {
                keyedArrays[first.member] = nil
                let index = members.firstIndex { $0.key == first.member } ?? members.endIndex
                if index == members.endIndex { members.append((first.member, .value(.null))) }
                members[index].value = .value(row ?? .null)
                continue
            }
            // Taken out while it changes, so the rows are not copied.
            var table = keyedArrays.removeValue(forKey: first.member) ?? takeArray(first.member, keyField: keyField)
            if steps.count == 1 {
                Self.put(row, at: key, in: &table)
            } else if let slot = table.slotOfKey[key], var parent = table.rows[slot]?.value {
                Self.edit(&parent, steps[1...], row)
                table.rows[slot] = .value(parent)
            }
            keyedArrays[first.member] = table
        }
    }

    /// The document with every record applied, as text.
    var text: [UInt8] {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        var written: Set<String> = []
        for (name, piece) in members {
            writer.key(name)
            if let table = keyedArrays[name], written.insert(name).inserted {
                Self.write(table, to: &writer)
            } else {
                piece.write(to: &writer)
            }
        }
        for (name, table) in keyedArrays where !members.contains(where: { $0.key == name }) {
            writer.key(name)
            Self.write(table, to: &writer)
        }
        writer.endObject()
        return writer.bytes
    }

    private static func write(_ table: KeyedRows, to writer: inout JSONWriter) {
        writer.beginArray()
        for row in table.rows { row?.write(to: &writer) }
        writer.endArray()
    }

    private static func steps(_ items: [JSONValue]) -> [RowPath.Step]? {
        var steps: [RowPath.Step] = []
        for item in items {
            guard let parts = item.arrayValue, let member = parts.first?.stringValue else { return nil }
            if parts.count == 3, let keyField = parts[1].stringValue, let key = RowKey(parts[2]) {
                steps.append(RowPath.Step(member: member, keyField: keyField, key: key))
            } else if parts.count == 1 {
                steps.append(RowPath.Step(member: member, keyField: nil, key: nil))
            } else {
                return nil
            }
        }
        return steps
    }

    /// A top-level array's rows, indexed by `keyField`.
    private func takeArray(_ name: String, keyField: String) -> KeyedRows {
        var rows: [Piece?] = []
        var slotOfKey: [RowKey: Int] = [:]
        switch members.first(where: { $0.key == name })?.value {
        case let .text(bytes)?:
            for (slot, row) in (JSONPieces.rows(of: bytes, keyField: keyField) ?? []).enumerated() {
                rows.append(.text(bytes[row.range]))
                if let key = row.key { slotOfKey[key] = slot }
            }
        case let .value(value)?:
            for (slot, row) in (value.arrayValue ?? []).enumerated() {
                rows.append(.value(row))
                if let key = row.objectValue?[keyField].flatMap(RowKey.init) { slotOfKey[key] = slot }
            }
        case nil:
            break
        }
        return KeyedRows(rows: rows, slotOfKey: slotOfKey)
    }

    private static func put(_ row: JSONValue?, at key: RowKey, in table: inout KeyedRows) {
        if let slot = table.slotOfKey[key] {
            table.rows[slot] = row.map(Piece.value)
            if row == nil { table.slotOfKey[key] = nil }
        } else if let row {
            table.slotOfKey[key] = table.rows.count
            table.rows.append(.value(row))
        }
    }

    /// A change to a row nested in `parent` (small: one workspace, one channel).
    private static func edit(_ parent: inout JSONValue, _ steps: ArraySlice<RowPath.Step>, _ row: JSONValue?) {
        guard var object = parent.objectValue, let step = steps.first, let keyField = step.keyField, let key = step.key,
              let index = object.members.lastIndex(where: { $0.key == step.member }),
              var items = object.members[index].value.arrayValue else { return }
        let position = items.firstIndex { $0.objectValue?[keyField].flatMap(RowKey.init) == key }
        if steps.count == 1 {
            switch (position, row) {
            case let (position?, row?): items[position] = row
            case let (position?, nil): items.remove(at: position)
            case let (nil, row?): items.append(row)
            case (nil, nil): break
            }
        } else if let position {
            edit(&items[position], steps.dropFirst(), row)
        }
        object.members[index].value = .array(items)
        parent = .object(object)
    }
}

/// The pieces of JSON text the state file is read in, found by the seed reader without building
/// values: an object's members and an array's elements, each with where its text lies (indices of
/// the slice given).
enum JSONPieces {
    /// The members of the object `bytes` holds, checked; nil when it holds another kind of value.
    static func members(of bytes: ArraySlice<UInt8>,
                        maxDepth: Int) throws(SeedError) -> [(key: String, range: Range<Int>)]? {
        try SeedJSON(bytes, maxDepth: maxDepth).read { root throws(SeedError) in
            guard root.scanner.current == UInt8(ascii: "{") else { return nil }
            var members: [(key: String, range: Range<Int>)] = []
            for (name, var value) in try root.memberValues() {
                try value.skip()
                members.append((root.scanner.decode(name), range(of: value, in: bytes)))
            }
            return members
        }
    }

    /// The elements of the array `bytes` holds (already checked), each with the key its object
    /// has in `keyField`; nil when it is not an array.
    static func rows(of bytes: ArraySlice<UInt8>, keyField: String) -> [(range: Range<Int>, key: RowKey?)]? {
        let field = Array(keyField.utf8)
        return try? SeedJSON(bytes, maxDepth: .max).read { root throws(SeedError) in
            guard root.scanner.current == UInt8(ascii: "[") else { return nil }
            var rows: [(range: Range<Int>, key: RowKey?)] = []
            try root.elements { row throws(SeedError) in
                var key: RowKey?
                if row.scanner.current == UInt8(ascii: "{") {
                    for (name, var value) in try row.memberValues()
                    where key == nil && !name.hasEscapes && row.scanner.bytes[name.content].elementsEqual(field) {
                        // A string or an integral number; nil for anything else.
                        let isString = value.scanner.current == UInt8(ascii: "\"")
                        key = try isString ? .string(value.string()) : (try? value.int()).map(RowKey.int)
                    }
                } else {
                    try row.skip()
                }
                rows.append((range(of: row, in: bytes), key))
            }
            return rows
        }
    }

    /// Where the text of a value read to its end lies in `bytes`.
    private static func range(of value: SeedReader, in bytes: ArraySlice<UInt8>) -> Range<Int> {
        (bytes.startIndex + value.offset)..<(bytes.startIndex + value.scanner.position)
    }
}
