import MockHTTP
import MockSupport

/// One object of a seed document (a row), read field by field by name: `try row.int("user_id")`.
/// Every problem names its place: `$.users[3].email: expected a string`, or `$.users[3].email:
/// missing`. Members no one asks for are checked and ignored; `null` is the same as absent for
/// an optional field, and the wrong type for a required one. A name given twice counts the last
/// time, as the JSON parsers of the real servers' languages take it.
public struct SeedFields {
    private let object: SeedReader
    /// Each member's name as it is in the text (compared byte for byte, not made a `String`) and
    /// a reader of its value.
    private let members: [Member]
    typealias Member = (name: JSONScanner.StringToken, value: SeedReader)

    /// Reads the object `reader` is at, and moves past it.
    public init(_ reader: inout SeedReader) throws(SeedError) {
        object = reader
        members = try reader.memberValues()
    }

    /// The same, its members listed in `members` (emptied first), which can then serve the next
    /// object once this one is gone (`SeedReader.objects`).
    init(_ reader: inout SeedReader, into members: inout [Member]) throws(SeedError) {
        object = reader
        members.removeAll(keepingCapacity: true)
        try reader.memberValues(into: &members)
        self.members = members
    }

    /// Whether the field is there and not `null`.
    public func has(_ name: String) -> Bool {
        reader(name).map { !$0.isNull } ?? false
    }

    /// The field's value read by `read`; a missing field is an error.
    public func value<Value>(_ name: String, _ read: (inout SeedReader) throws(SeedError) -> Value) throws(SeedError) -> Value {
        guard var value = reader(name) else { throw missing(name) }
        return try read(&value)
    }

    /// The field's value read by `read`, or nil when it is absent or `null`.
    public func optional<Value>(_ name: String, _ read: (inout SeedReader) throws(SeedError) -> Value) throws(SeedError) -> Value? {
        guard var value = reader(name), !value.isNull else { return nil }
        return try read(&value)
    }

    public func int(_ name: String) throws(SeedError) -> Int { try value(name) { reader throws(SeedError) in try reader.int() } }
    public func string(_ name: String) throws(SeedError) -> String { try value(name) { reader throws(SeedError) in try reader.string() } }
    /// A non-empty string.
    public func text(_ name: String) throws(SeedError) -> String { try value(name) { reader throws(SeedError) in try reader.text() } }
    public func bool(_ name: String) throws(SeedError) -> Bool { try value(name) { reader throws(SeedError) in try reader.bool() } }

    /// A problem with the whole object: `$.threads[3]: user_id 44 is not a user`.
    public func fail(_ problem: String) -> SeedError {
        object.fail(problem)
    }

    /// A problem with one field's value (at the object when the field is absent).
    public func fail(_ name: String, _ problem: String) -> SeedError {
        (reader(name) ?? object).fail(problem)
    }

    private func missing(_ name: String) -> SeedError {
        SeedError(path: object.path(of: object.offset) + "." + name, problem: "missing")
    }

    private func reader(_ name: String) -> SeedReader? {
        var name = name
        return name.withUTF8 { name in
            // From the last: a name given twice counts the last time.
            var index = members.endIndex
            while index > 0 {
                index -= 1
                if object.scanner.spells(name, members[index].name) { return members[index].value }
            }
            return nil
        }
    }
}

/// One object of a seed document being written, field by field, in the order the calls come.
public struct SeedFieldWriter {
    @usableFromInline var json: JSONWriter

    init(_ json: JSONWriter) {
        self.json = json
    }

    public mutating func field(_ name: String, _ value: Int) { json.member(name, value) }
    public mutating func field(_ name: String, _ value: String) { json.member(name, value) }
    public mutating func field(_ name: String, _ value: Bool) { json.member(name, value) }
    public mutating func field(_ name: String, _ values: [String]) { json.member(name, values) }

    /// A text, or `null` when there is none (the field is always written).
    public mutating func field(_ name: String, _ value: String?) {
        json.key(name)
        if let value { json.string(value) } else { json.null() }
    }

    /// An array of objects nested in this one (cse118's channels in a workspace), each written by `write`.
    public mutating func field<Elements: Sequence>(_ name: String, objects elements: Elements,
                                                   _ write: (inout SeedFieldWriter, Elements.Element) -> Void) {
        json.key(name)
        objects(elements, write)
    }

    /// An array of objects as a member's whole value, each written by `write`.
    public mutating func objects<Elements: Sequence>(_ elements: Elements, _ write: (inout SeedFieldWriter, Elements.Element) -> Void) {
        json.beginArray()
        for element in elements {
            json.beginObject()
            write(&self, element)
            json.endObject()
        }
        json.endArray()
    }

    /// One object written by `write`, as compact JSON (a row of the state log).
    public static func object(_ write: (inout SeedFieldWriter) -> Void) -> [UInt8] {
        var writer = SeedFieldWriter(JSONWriter(escapeSlash: false))
        writer.json.beginObject()
        write(&writer)
        writer.json.endObject()
        return writer.json.bytes
    }

    /// An array of objects written by `write`, as compact JSON (a whole member of the state log).
    public static func objects<Elements: Sequence>(_ elements: Elements, _ write: (inout SeedFieldWriter, Elements.Element) -> Void) -> [UInt8] {
        var writer = SeedFieldWriter(JSONWriter(escapeSlash: false))
        writer.objects(elements, write)
        return writer.json.bytes
    }

}

/// A value written in a seed document as one object: a table's row, or a member such as
/// threads' `next_ids`.
public protocol SeedRow {
    /// Reads the object by field name, checking each value as the real server could have sent it.
    init(seed: SeedFields) throws(SeedError)
    /// Writes the fields, in the order the seed file has them.
    func write(to seed: inout SeedFieldWriter)
}

extension SeedRow {
    /// The object as compact JSON, as the state log writes a row.
    public var seedJSON: [UInt8] {
        var writer = SeedFieldWriter(JSONWriter(escapeSlash: false))
        writer.object(self)
        return writer.json.bytes
    }
}
