/// Writes compact JSON in exactly the order the calls are made.
///
///     var w = JSONWriter(escapeSlash: false)
///     w.beginObject(); w.key("id"); w.int(2); w.endObject()   // {"id":2}
///
/// Commas are inserted automatically. The writer does not check structure: a key
/// outside an object or an unbalanced end produces invalid JSON, so callers pair
/// their calls.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Writes `/` as `\/`, as some servers being imitated do.
    public let escapeSlash: Bool
    /// A value has been written at the current level, so the next one needs a comma.
    private var needsComma = false

    public init(escapeSlash: Bool = false) {
        self.escapeSlash = escapeSlash
    }

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    /// A member name; the next call writes its value.
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ s: String) { writeValue { $0.appendQuoted(s) } }
    public mutating func int(_ v: Int) { writeValue { $0.bytes.append(contentsOf: String(v).utf8) } }
    public mutating func uint(_ v: UInt) { writeValue { $0.bytes.append(contentsOf: String(v).utf8) } }
    public mutating func bool(_ v: Bool) { writeValue { $0.bytes.append(contentsOf: v ? Self.trueBytes : Self.falseBytes) } }
    public mutating func null() { writeValue { $0.bytes.append(contentsOf: Self.nullBytes) } }

    /// An object of string members in the order given.
    public mutating func object(_ members: [(key: String, value: String)]) {
        beginObject()
        for (name, value) in members {
            key(name)
            string(value)
        }
        endObject()
    }

    /// `object(members)` on its own: the bytes of a flat object of string members.
    public static func flatObject(_ members: [(key: String, value: String)], escapeSlash: Bool) -> [UInt8] {
        var writer = JSONWriter(escapeSlash: escapeSlash)
        writer.object(members)
        return writer.bytes
    }

    /// One already-encoded JSON value, copied unchanged.
    public mutating func raw(_ json: some Sequence<UInt8>) { writeValue { $0.bytes.append(contentsOf: json) } }

    /// A value at the current level, after a comma if one came before it.
    @inline(__always)
    private mutating func writeValue(_ write: (inout JSONWriter) -> Void) {
        separate()
        write(&self)
        needsComma = true
    }

    /// Integral values without a fraction (`2.0` → `2`), others in the shortest form
    /// that reads back the same, and NaN or infinity as `null` (JSON has neither).
    public mutating func double(_ v: Double) { floatingPoint(v) }

    /// Like `double`, but shortest in `Float` precision (`0.1` stays `0.1`).
    public mutating func float(_ v: Float) { floatingPoint(v) }

    private mutating func floatingPoint(_ v: some BinaryFloatingPoint & CustomStringConvertible) {
        guard v.isFinite else { return null() }
        if let i = Int(exactly: v) { return int(i) }
        writeValue { $0.bytes.append(contentsOf: v.description.utf8) }
    }

    /// One object member, `"name":value`, for writers that fill an object field by field.
    public mutating func member(_ name: String, _ value: Int) {
        key(name)
        int(value)
    }

    public mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    public mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// One object member whose value is an array of strings.
    public mutating func member(_ name: String, _ values: [String]) {
        key(name)
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    /// Writes a parsed value back verbatim; number text is copied as is, except
    /// text that is not a JSON number, which becomes `null` to keep the output valid.
    public mutating func value(_ v: JSONValue) {
        switch v {
        case .null:
            null()
        case .bool(let b):
            bool(b)
        case .number(let text):
            if JSONNumber.isValid(text) { raw(text.utf8) } else { null() }
        case .string(let s):
            string(s)
        case .array(let elements):
            beginArray()
            for element in elements { value(element) }
            endArray()
        case .object(let object):
            beginObject()
            for member in object.members {
                key(member.key)
                value(member.value)
            }
            endObject()
        }
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendQuoted(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Copies runs of plain bytes in one go and escapes the rest. Non-ASCII stays raw UTF-8.
    /// A plain index loop with one comparison per plain byte: `enumerated()` and range patterns
    /// cost generic-metadata lookups per byte in a debug build (a 4 MB tweet list took 1 s).
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        let slash = escapeSlash ? UInt8(ascii: "/") : backslash
        var runStart = 0
        var i = 0
        while i < utf8.count {
            let byte = utf8[i]
            if byte >= 0x20 && byte != quote && byte != backslash && byte != slash {
                i += 1
                continue
            }
            let escape: UInt8
            switch byte {
            case 0x0A: escape = UInt8(ascii: "n")
            case 0x0D: escape = UInt8(ascii: "r")
            case 0x09: escape = UInt8(ascii: "t")
            case 0x08: escape = UInt8(ascii: "b")
            case 0x0C: escape = UInt8(ascii: "f")
            default: escape = byte < 0x20 ? UInt8(ascii: "u") : byte
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
            bytes.append(backslash)
            bytes.append(escape)
            if escape == UInt8(ascii: "u") {
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            }
            i += 1
            runStart = i
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }
}

extension JSONValue {
    /// Compact JSON for this value, members in their stored order.
    public func encoded(escapeSlash: Bool) -> [UInt8] {
        var writer = JSONWriter(escapeSlash: escapeSlash)
        writer.value(self)
        return writer.bytes
    }
}
