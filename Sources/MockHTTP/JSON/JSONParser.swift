/// Why a document was rejected, and the byte offset where it went wrong.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int

    public init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(message) at byte \(offset)" }
}

/// A strict RFC 8259 parser: exactly one value, no extensions, valid UTF-8 only.
///
/// It never recurses, so nesting depth is limited only by `maxDepth`, and it runs
/// in time linear in the input.
public enum JSONParser {
    /// `maxDepth` counts nested arrays and objects. Parsing itself never recurses,
    /// but releasing, comparing and writing a `JSONValue` do, one call per level, so
    /// keep the limit in the hundreds for input from the network.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 128) throws(JSONParseError) -> JSONValue {
        var parser = Parser(bytes: Array(bytes), maxDepth: maxDepth)
        return try parser.parseDocument()
    }
}

private struct Parser {
    let bytes: [UInt8]
    let maxDepth: Int
    var position = 0
    /// Reused for strings that contain escapes.
    var scratch: [UInt8] = []

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// An array or object whose closing bracket has not been seen yet.
    struct Open {
        var elements: [JSONValue] = []
        var members: [(key: String, value: JSONValue)] = []
        /// For objects, the key awaiting its value; nil for arrays.
        var key: String?
    }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    func error(_ message: String) -> JSONParseError {
        JSONParseError(position < bytes.count ? message : "unexpected end of input", at: position)
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        // Containers live on this explicit stack instead of the call stack, so deep
        // nesting costs heap, is bounded by maxDepth, and cannot overflow the stack.
        var stack: [Open] = []
        skipWhitespace()
        nextValue: while true {
            var value: JSONValue
            guard let first = current else { throw error("expected a value") }
            switch first {
            case UInt8(ascii: "["):
                guard stack.count < maxDepth else { throw error("nesting deeper than \(maxDepth)") }
                position += 1
                skipWhitespace()
                if current == UInt8(ascii: "]") {
                    position += 1
                    value = .array([])
                } else {
                    stack.append(Open())
                    continue nextValue
                }
            case UInt8(ascii: "{"):
                guard stack.count < maxDepth else { throw error("nesting deeper than \(maxDepth)") }
                position += 1
                skipWhitespace()
                if current == UInt8(ascii: "}") {
                    position += 1
                    value = .object(JSONObject())
                } else {
                    stack.append(Open(key: try parseKey()))
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            default:
                throw error("expected a value")
            }

            // Hand the finished value to the innermost open container; a closing
            // bracket finishes that container too, so repeat outwards.
            while true {
                skipWhitespace()
                guard let top = stack.indices.last else {
                    guard position == bytes.count else { throw error("unexpected data after the JSON value") }
                    return value
                }
                if let key = stack[top].key {
                    stack[top].members.append((key: key, value: value))
                    switch current {
                    case UInt8(ascii: ","):
                        position += 1
                        skipWhitespace()
                        stack[top].key = try parseKey()
                        continue nextValue
                    case UInt8(ascii: "}"):
                        position += 1
                        value = .object(JSONObject(stack.removeLast().members))
                    default:
                        throw error("expected ',' or '}'")
                    }
                } else {
                    stack[top].elements.append(value)
                    switch current {
                    case UInt8(ascii: ","):
                        position += 1
                        skipWhitespace()
                        continue nextValue
                    case UInt8(ascii: "]"):
                        position += 1
                        value = .array(stack.removeLast().elements)
                    default:
                        throw error("expected ',' or ']'")
                    }
                }
            }
        }
    }

    /// A member name and its colon; leaves the position at the value.
    mutating func parseKey() throws(JSONParseError) -> String {
        guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
        let key = try parseString()
        skipWhitespace()
        guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
        position += 1
        skipWhitespace()
        return key
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let start = position
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard current == expected else { throw error(position == start ? "expected a value" : "invalid literal") }
            position += 1
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> String {
        let start = position
        var scanner = JSONNumberScanner(bytes, position: position)
        _ = try scanner.scan()
        position = scanner.position
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Called at the opening quote; returns with the position past the closing one.
    mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        var runStart = position
        var escaped = false
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                let text: String
                if escaped {
                    scratch.append(contentsOf: bytes[runStart..<position])
                    text = String(decoding: scratch, as: UTF8.self)
                } else {
                    text = String(decoding: bytes[runStart..<position], as: UTF8.self)
                }
                position += 1
                return text
            case UInt8(ascii: "\\"):
                if !escaped {
                    scratch.removeAll(keepingCapacity: true)
                    escaped = true
                }
                scratch.append(contentsOf: bytes[runStart..<position])
                try parseEscape()
                runStart = position
            case 0..<0x20:
                throw error("control character in string")
            case 0x80...:
                position += try utf8SequenceLength()
            default:
                position += 1
            }
        }
        throw error("unterminated string")
    }

    /// Called at the backslash; appends the decoded character to `scratch`.
    mutating func parseEscape() throws(JSONParseError) {
        position += 1
        guard let letter = current else { throw error("unterminated string") }
        let simple: UInt8
        switch letter {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            let escapeStart = position - 1
            position += 1
            var scalar = try hex4()
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                // A high surrogate only means something together with a low one.
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count,
                      bytes[position + 1] == UInt8(ascii: "u") else {
                    throw JSONParseError("unpaired surrogate escape", at: escapeStart)
                }
                position += 2
                let low = try hex4()
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw JSONParseError("unpaired surrogate escape", at: escapeStart)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw JSONParseError("unpaired surrogate escape", at: escapeStart)
            }
            appendUTF8(scalar)
            return
        default:
            throw error("invalid escape")
        }
        scratch.append(simple)
        position += 1
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = hexDigitValue(byte) else { throw error("expected four hex digits") }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// The length of the well-formed UTF-8 sequence at the position (Unicode
    /// table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
    func utf8SequenceLength() throws(JSONParseError) -> Int {
        let lead = bytes[position]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw error("invalid UTF-8")
        }
        guard position + length <= bytes.count, secondRange.contains(bytes[position + 1]) else {
            throw error("invalid UTF-8")
        }
        for i in position + 2 ..< position + length where bytes[i] & 0xC0 != 0x80 {
            throw error("invalid UTF-8")
        }
        return length
    }
}

/// 0–15 for an ASCII hex digit of either case.
public func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}
