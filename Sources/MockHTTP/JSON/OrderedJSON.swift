/// Encodes `Encodable` values to compact JSON with object keys in the order they
/// were encoded. Synthesized `encode(to:)` encodes properties in declaration order,
/// so structs come out as declared (Foundation's `JSONEncoder` does not keep any
/// order on Linux). Nil optionals are omitted, `JSONValue`s are written verbatim.
public enum OrderedJSON {
    /// Errors thrown by a value's own `encode(to:)` are not expected from plain data
    /// types; if one is thrown, whatever was encoded before it is written.
    public static func encode<T: Encodable>(_ value: T, escapeSlash: Bool) -> [UInt8] {
        let root = Slot()
        try? TreeEncoder(slot: root, codingPath: []).encodeValue(value)
        var writer = JSONWriter(escapeSlash: escapeSlash)
        root.write(to: &writer)
        return writer.bytes
    }
}

extension JSONValue: Encodable {
    /// `OrderedJSON` never calls this (it copies the value verbatim); other encoders
    /// get the nearest equivalent, with numbers as Int, Double, or their text.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .number(let text):
            var c = encoder.singleValueContainer()
            if let i = intValue {
                try c.encode(i)
            } else if let d = doubleValue {
                try c.encode(d)
            } else {
                try c.encode(text)
            }
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let elements):
            var c = encoder.unkeyedContainer()
            for element in elements { try c.encode(element) }
        case .object(let object):
            try object.encode(to: encoder)
        }
    }
}

extension JSONObject: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: NameKey.self)
        for member in members { try c.encode(member.value, forKey: NameKey(member.key)) }
    }
}

/// A coding key made from any string or index.
private struct NameKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ name: String) {
        stringValue = name
    }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// One place in the tree being built. Containers hand out slots as soon as a key
/// or element is encoded, so a nested container filled in later still appears
/// where it was created.
private final class Slot {
    enum Content {
        case empty
        case null
        case bool(Bool)
        case int(Int)
        case uint(UInt)
        case double(Double)
        case float(Float)
        case string(String)
        case json(JSONValue)
        case object(ObjectBox)
        case array(ArrayBox)
    }

    var content: Content

    init(_ content: Content = .empty) {
        self.content = content
    }

    /// The object stored here, replacing any other content; asking twice (as class
    /// hierarchies do) yields the same object.
    var object: ObjectBox {
        if case .object(let box) = content { return box }
        let box = ObjectBox()
        content = .object(box)
        return box
    }

    var array: ArrayBox {
        if case .array(let box) = content { return box }
        let box = ArrayBox()
        content = .array(box)
        return box
    }

    func write(to writer: inout JSONWriter) {
        switch content {
        case .empty:
            // A value that encoded nothing at all; JSONEncoder writes `{}` here too.
            writer.beginObject()
            writer.endObject()
        case .null: writer.null()
        case .bool(let v): writer.bool(v)
        case .int(let v): writer.int(v)
        case .uint(let v): writer.uint(v)
        case .double(let v): writer.double(v)
        case .float(let v): writer.float(v)
        case .string(let v): writer.string(v)
        case .json(let v): writer.value(v)
        case .object(let box):
            writer.beginObject()
            for member in box.members {
                writer.key(member.key)
                member.slot.write(to: &writer)
            }
            writer.endObject()
        case .array(let box):
            writer.beginArray()
            for item in box.items { item.write(to: &writer) }
            writer.endArray()
        }
    }
}

private final class ObjectBox {
    private(set) var members: [(key: String, slot: Slot)] = []
    private var positions: [String: Int] = [:]

    /// The slot for `key`: a key encoded twice keeps its first position and its
    /// last value, so the output never repeats a key.
    func slot(_ key: String) -> Slot {
        if let i = positions[key] {
            members[i].slot.content = .empty
            return members[i].slot
        }
        let slot = Slot()
        positions[key] = members.count
        members.append((key: key, slot: slot))
        return slot
    }

    func set(_ key: String, _ content: Slot.Content) {
        slot(key).content = content
    }
}

private final class ArrayBox {
    private(set) var items: [Slot] = []

    func append(_ content: Slot.Content = .empty) -> Slot {
        let slot = Slot(content)
        items.append(slot)
        return slot
    }
}

private struct TreeEncoder: Encoder {
    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func encodeValue<T: Encodable>(_ value: T) throws {
        // Checked before encode(to:) so number text survives unchanged.
        if let json = value as? JSONValue {
            slot.content = .json(json)
        } else if let object = value as? JSONObject {
            slot.content = .json(.object(object))
        } else {
            try value.encode(to: self)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedContainer<Key>(object: slot.object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedContainer(array: slot.array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(slot: slot, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: ObjectBox
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) { object.set(key.stringValue, .null) }
    mutating func encode(_ v: Bool, forKey key: Key) { object.set(key.stringValue, .bool(v)) }
    mutating func encode(_ v: String, forKey key: Key) { object.set(key.stringValue, .string(v)) }
    mutating func encode(_ v: Double, forKey key: Key) { object.set(key.stringValue, .double(v)) }
    mutating func encode(_ v: Float, forKey key: Key) { object.set(key.stringValue, .float(v)) }
    mutating func encode(_ v: Int, forKey key: Key) { object.set(key.stringValue, .int(v)) }
    mutating func encode(_ v: Int8, forKey key: Key) { object.set(key.stringValue, .int(Int(v))) }
    mutating func encode(_ v: Int16, forKey key: Key) { object.set(key.stringValue, .int(Int(v))) }
    mutating func encode(_ v: Int32, forKey key: Key) { object.set(key.stringValue, .int(Int(v))) }
    mutating func encode(_ v: Int64, forKey key: Key) { object.set(key.stringValue, .int(Int(v))) }
    mutating func encode(_ v: Int128, forKey key: Key) { object.set(key.stringValue, .json(.number(String(v)))) }
    mutating func encode(_ v: UInt, forKey key: Key) { object.set(key.stringValue, .uint(v)) }
    mutating func encode(_ v: UInt8, forKey key: Key) { object.set(key.stringValue, .uint(UInt(v))) }
    mutating func encode(_ v: UInt16, forKey key: Key) { object.set(key.stringValue, .uint(UInt(v))) }
    mutating func encode(_ v: UInt32, forKey key: Key) { object.set(key.stringValue, .uint(UInt(v))) }
    mutating func encode(_ v: UInt64, forKey key: Key) { object.set(key.stringValue, .uint(UInt(v))) }
    mutating func encode(_ v: UInt128, forKey key: Key) { object.set(key.stringValue, .json(.number(String(v)))) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder(for: key).encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder(for: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder(for: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        TreeEncoder(slot: object.slot("super"), codingPath: codingPath + [NameKey("super")])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder(for: key)
    }

    private func encoder(for key: Key) -> TreeEncoder {
        TreeEncoder(slot: object.slot(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let array: ArrayBox
    let codingPath: [any CodingKey]
    var count: Int { array.items.count }

    mutating func encodeNil() { _ = array.append(.null) }
    mutating func encode(_ v: Bool) { _ = array.append(.bool(v)) }
    mutating func encode(_ v: String) { _ = array.append(.string(v)) }
    mutating func encode(_ v: Double) { _ = array.append(.double(v)) }
    mutating func encode(_ v: Float) { _ = array.append(.float(v)) }
    mutating func encode(_ v: Int) { _ = array.append(.int(v)) }
    mutating func encode(_ v: Int8) { _ = array.append(.int(Int(v))) }
    mutating func encode(_ v: Int16) { _ = array.append(.int(Int(v))) }
    mutating func encode(_ v: Int32) { _ = array.append(.int(Int(v))) }
    mutating func encode(_ v: Int64) { _ = array.append(.int(Int(v))) }
    mutating func encode(_ v: Int128) { _ = array.append(.json(.number(String(v)))) }
    mutating func encode(_ v: UInt) { _ = array.append(.uint(v)) }
    mutating func encode(_ v: UInt8) { _ = array.append(.uint(UInt(v))) }
    mutating func encode(_ v: UInt16) { _ = array.append(.uint(UInt(v))) }
    mutating func encode(_ v: UInt32) { _ = array.append(.uint(UInt(v))) }
    mutating func encode(_ v: UInt64) { _ = array.append(.uint(UInt(v))) }
    mutating func encode(_ v: UInt128) { _ = array.append(.json(.number(String(v)))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try nextEncoder().encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey> {
        nextEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        nextEncoder().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        nextEncoder()
    }

    private func nextEncoder() -> TreeEncoder {
        let index = count
        return TreeEncoder(slot: array.append(), codingPath: codingPath + [NameKey(intValue: index)])
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil() { slot.content = .null }
    mutating func encode(_ v: Bool) { slot.content = .bool(v) }
    mutating func encode(_ v: String) { slot.content = .string(v) }
    mutating func encode(_ v: Double) { slot.content = .double(v) }
    mutating func encode(_ v: Float) { slot.content = .float(v) }
    mutating func encode(_ v: Int) { slot.content = .int(v) }
    mutating func encode(_ v: Int8) { slot.content = .int(Int(v)) }
    mutating func encode(_ v: Int16) { slot.content = .int(Int(v)) }
    mutating func encode(_ v: Int32) { slot.content = .int(Int(v)) }
    mutating func encode(_ v: Int64) { slot.content = .int(Int(v)) }
    mutating func encode(_ v: Int128) { slot.content = .json(.number(String(v))) }
    mutating func encode(_ v: UInt) { slot.content = .uint(v) }
    mutating func encode(_ v: UInt8) { slot.content = .uint(UInt(v)) }
    mutating func encode(_ v: UInt16) { slot.content = .uint(UInt(v)) }
    mutating func encode(_ v: UInt32) { slot.content = .uint(UInt(v)) }
    mutating func encode(_ v: UInt64) { slot.content = .uint(UInt(v)) }
    mutating func encode(_ v: UInt128) { slot.content = .json(.number(String(v))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try TreeEncoder(slot: slot, codingPath: codingPath).encodeValue(value)
    }
}
