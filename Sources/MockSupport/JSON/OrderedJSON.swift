/// Encodes `Encodable` values to compact JSON, object keys in the order encoded: structs come out
/// as declared (Foundation's `JSONEncoder` keeps no order on Linux). Nil optionals are omitted,
/// `JSONValue`s are written verbatim.
///
/// The encoder streams into one `JSONWriter`, building no tree: a container writes `{` or `[` when
/// created and is closed when the value that created it returns from `encode(to:)`, or as soon as
/// something is written into a container further out. Unlike `JSONEncoder`:
/// - a key encoded twice in one object is written twice (not "last value wins");
/// - a nested container or `superEncoder()` must be filled before its parent is written to again;
///   writing to a closed container, writing a single value twice, or asking for a container after
///   a value throws `EncodingError.invalidValue` (the output stays valid JSON, see `encode`);
/// - asking one encoder twice for a keyed (or unkeyed) container returns the one already open, so
///   class hierarchies sharing one encoder still get one object;
/// - `codingPath` is always empty: nothing in the package reads it, and errors are not reported.
public enum OrderedJSON {
    /// Errors thrown by a value's own `encode(to:)` are not expected from plain data
    /// types; if one is thrown, whatever was encoded before it is written, with every
    /// open container closed (a key whose value was never written gets `{}`).
    public static func encode<T: Encodable>(_ value: T, escapeSlash: Bool) -> [UInt8] {
        var stream = Stream(writer: JSONWriter(escapeSlash: escapeSlash))
        withUnsafeMutablePointer(to: &stream) { stream in
            let root = StreamEncoder(stream: stream, slot: stream.pointee.reserveSlot(), depth: 0)
            try? root.encodeValue(value)
            stream.pointee.settle(keepingFrames: 0)
        }
        return stream.writer.bytes
    }
}

extension JSONValue: Encodable {
    /// `OrderedJSON` never calls this (it copies the value verbatim); other encoders
    /// get the nearest equivalent, with numbers as Int, Double, or their text.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let text):
            if let i = intValue {
                try c.encode(i)
            } else if let d = doubleValue {
                try c.encode(d)
            } else {
                try c.encode(text)
            }
        case .string(let s): try c.encode(s)
        case .array(let elements): try c.encode(elements)
        case .object(let object): try c.encode(object)
        }
    }
}

extension JSONObject: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: NameKey.self)
        for member in members { try c.encode(member.value, forKey: NameKey(stringValue: member.key)) }
    }
}

/// A coding key made from any string or index.
private struct NameKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// The state shared by every encoder and container of one `OrderedJSON.encode` call.
/// They reach it through an unsafe pointer that lives as long as that call: no
/// reference counting and no exclusivity checks on the hot path. An encoder or
/// container kept beyond its `encode(to:)` (which `Encoder` forbids anyway) must
/// not be used.
private struct Stream {
    /// An open container: the slot whose value it is, and what it holds.
    struct Frame {
        var owner: Int
        var isObject: Bool
        var count = 0
    }

    var writer: JSONWriter
    /// Open containers, outermost first; a frame's index is the depth of its slot.
    var frames: [Frame] = []
    /// The slot whose key (or array position) is written but whose value is not yet;
    /// slots count from 1, 0 is none.
    var pending = 0
    private var lastSlot = 0

    init(writer: JSONWriter) {
        self.writer = writer
        frames.reserveCapacity(8)
    }

    /// A new value position, waiting for its value.
    mutating func reserveSlot() -> Int {
        lastSlot += 1
        pending = lastSlot
        return lastSlot
    }

    /// Makes the container at `depth` owned by `owner` the innermost one, closing
    /// containers nested in it. False if it was closed already (or never opened).
    mutating func enter(depth: Int, owner: Int) -> Bool {
        guard depth < frames.count, frames[depth].owner == owner else { return false }
        settle(keepingFrames: depth + 1)
        return true
    }

    /// Gives an unfilled slot the value `{}` (what JSONEncoder writes for a value that
    /// encodes nothing) and closes every container beyond the first `count`.
    mutating func settle(keepingFrames count: Int) {
        if pending != 0 {
            pending = 0
            writer.beginObject()
            writer.endObject()
        }
        while frames.count > count {
            if frames.removeLast().isObject { writer.endObject() } else { writer.endArray() }
        }
    }

    /// The container of `slot` at `depth`, opening it if the slot is pending; nil if the
    /// slot already holds something else.
    mutating func container(object: Bool, slot: Int, depth: Int) -> Int? {
        if pending == slot {
            pending = 0
            if object { writer.beginObject() } else { writer.beginArray() }
            frames.append(Frame(owner: slot, isObject: object))
            return slot
        }
        if depth < frames.count, frames[depth].owner == slot, frames[depth].isObject == object { return slot }
        return nil
    }
}

private func closedError(_ value: Any) -> EncodingError {
    EncodingError.invalidValue(value, EncodingError.Context(
        codingPath: [],
        debugDescription: "OrderedJSON streams: this container or value was closed or written already"))
}

/// Bit-for-bit the same value; only called after checking that `T` is `U`.
@inline(__always)
private func same<T, U>(_ value: T, as type: U.Type) -> U {
    unsafeBitCast(value, to: type)
}

/// The encoder of one value position (`slot`) at `depth` containers deep.
private struct StreamEncoder: Encoder {
    let stream: UnsafeMutablePointer<Stream>
    let slot: Int
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Writes `value` into this (pending) slot and closes whatever it opened.
    func encodeValue<T: Encodable>(_ value: T) throws {
        guard stream.pointee.pending == slot else { throw closedError(value) }
        // Common leaves skip their single-value container; JSON values are checked
        // before encode(to:) so number text survives unchanged.
        stream.pointee.pending = 0
        if T.self == String.self {
            stream.pointee.writer.string(same(value, as: String.self))
        } else if T.self == Int.self {
            stream.pointee.writer.int(same(value, as: Int.self))
        } else if T.self == Bool.self {
            stream.pointee.writer.bool(same(value, as: Bool.self))
        } else if T.self == Double.self {
            stream.pointee.writer.double(same(value, as: Double.self))
        } else if T.self == JSONValue.self {
            stream.pointee.writer.value(same(value, as: JSONValue.self))
        } else if T.self == JSONObject.self {
            stream.pointee.writer.value(.object(same(value, as: JSONObject.self)))
        } else {
            stream.pointee.pending = slot  // not a leaf: the slot waits for what encode(to:) writes
            try value.encode(to: self)
            // Closes this value's container (and anything left open inside it).
            if stream.pointee.frames.count > depth || stream.pointee.pending == slot {
                stream.pointee.settle(keepingFrames: depth)
            }
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let owner = stream.pointee.container(object: true, slot: slot, depth: depth) ?? 0
        return KeyedEncodingContainer(KeyedStreamContainer<Key>(stream: stream, owner: owner, depth: depth))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let owner = stream.pointee.container(object: false, slot: slot, depth: depth) ?? 0
        return UnkeyedStreamContainer(stream: stream, owner: owner, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueStreamContainer(encoder: self)
    }
}

/// The object of slot `owner` (0 for a container that could not be opened: every
/// write throws, and nested encoders it hands out are closed ones).
private struct KeyedStreamContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let stream: UnsafeMutablePointer<Stream>
    let owner: Int
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { try put(key) { $0.null() } }
    mutating func encode(_ v: Bool, forKey key: Key) throws { try put(key) { $0.bool(v) } }
    mutating func encode(_ v: String, forKey key: Key) throws { try put(key) { $0.string(v) } }
    mutating func encode(_ v: Double, forKey key: Key) throws { try put(key) { $0.double(v) } }
    mutating func encode(_ v: Int, forKey key: Key) throws { try put(key) { $0.int(v) } }

    /// Also the witness of the other widths and `Float`: rare, they reach a single value container.
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard let encoder = memberEncoder(key) else { throw closedError(value) }
        try encoder.encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        slotEncoder(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        slotEncoder(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        slotEncoder(NameKey(stringValue: "super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        slotEncoder(key)
    }

    @inline(__always)  // no generic metadata lookup per member
    private func put(_ key: Key, _ write: (inout JSONWriter) -> Void) throws {
        guard stream.pointee.enter(depth: depth, owner: owner) else { throw closedError(key.stringValue) }
        stream.pointee.writer.key(key.stringValue)
        write(&stream.pointee.writer)
    }

    /// Writes `key` and returns the encoder of its value; nil if this object is closed.
    @inline(__always)  // no generic metadata lookup per member
    private func memberEncoder(_ key: some CodingKey) -> StreamEncoder? {
        guard stream.pointee.enter(depth: depth, owner: owner) else { return nil }
        stream.pointee.writer.key(key.stringValue)
        return StreamEncoder(stream: stream, slot: stream.pointee.reserveSlot(), depth: depth + 1)
    }

    private func slotEncoder(_ key: some CodingKey) -> StreamEncoder {
        // A closed object hands out an encoder whose every use throws.
        memberEncoder(key) ?? StreamEncoder(stream: stream, slot: -1, depth: depth + 1)
    }
}

/// The array of slot `owner` (0: every write throws).
private struct UnkeyedStreamContainer: UnkeyedEncodingContainer {
    let stream: UnsafeMutablePointer<Stream>
    let owner: Int
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    var count: Int {
        let frames = stream.pointee.frames
        return depth < frames.count && frames[depth].owner == owner ? frames[depth].count : 0
    }

    mutating func encodeNil() throws {
        try encode(Int?.none)
    }

    /// Also the witness of `encode(Bool)`, `encode(Int8)` and the other scalars: arrays reach it
    /// anyway (`Array.encode(to:)` is generic), and each element's encoder writes common scalars
    /// itself and rare ones through its single-value container.
    mutating func encode<T: Encodable>(_ value: T) throws {
        guard let encoder = elementEncoder() else { throw closedError(value) }
        try encoder.encodeValue(value)
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

    /// Makes this array the innermost container, counts one more element and returns its encoder;
    /// nil if this array is closed.
    private func elementEncoder() -> StreamEncoder? {
        guard stream.pointee.enter(depth: depth, owner: owner) else { return nil }
        stream.pointee.frames[depth].count += 1
        return StreamEncoder(stream: stream, slot: stream.pointee.reserveSlot(), depth: depth + 1)
    }

    private func nextEncoder() -> StreamEncoder {
        elementEncoder() ?? StreamEncoder(stream: stream, slot: -1, depth: depth + 1)
    }
}

private struct SingleValueStreamContainer: SingleValueEncodingContainer {
    let encoder: StreamEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { try put { $0.null() } }
    mutating func encode(_ v: Bool) throws { try put { $0.bool(v) } }
    mutating func encode(_ v: String) throws { try put { $0.string(v) } }
    mutating func encode(_ v: Double) throws { try put { $0.double(v) } }
    mutating func encode(_ v: Float) throws { try put { $0.float(v) } }

    /// The witness of every integer width's requirement.
    mutating func encode<T: FixedWidthInteger & Encodable>(_ v: T) throws {
        try put { T.isSigned ? $0.int(Int(v)) : $0.uint(UInt(v)) }
    }

    private func put(_ write: (inout JSONWriter) -> Void) throws {
        guard encoder.stream.pointee.pending == encoder.slot else { throw closedError(encoder.slot) }
        encoder.stream.pointee.pending = 0
        write(&encoder.stream.pointee.writer)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.encodeValue(value)
    }
}
