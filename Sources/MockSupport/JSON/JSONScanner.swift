/// Reads JSON text in place, one token at a time: the grammar shared by `JSONParser`, which builds
/// a `JSONValue`, and readers that build their own rows straight from the bytes (`SeedReader`).
/// Every check of RFC 8259 lives here once: strings (escapes, surrogate pairs, well-formed UTF-8,
/// no control characters), numbers, literals and the nesting of skipped values.
///
/// The bytes must stay valid and unchanged while the scanner is used.
public struct JSONScanner {
    public let bytes: UnsafeBufferPointer<UInt8>
    public var position: Int

    public init(_ bytes: UnsafeBufferPointer<UInt8>, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    /// A string as found: the bytes between its quotes, and whether any of them is an escape.
    public struct StringToken {
        public var content: Range<Int>
        public var hasEscapes: Bool
    }

    @inlinable @inline(__always)
    public var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    @inlinable @inline(__always)
    public var atEnd: Bool { position >= bytes.count }

    /// Inlinable, like `current`: it runs between every two tokens, mostly finding no space at all,
    /// so a call would cost more than the work.
    @inlinable @inline(__always)
    public mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// An error at the position; past the end every error is the end of the input.
    public func error(_ message: String) -> JSONParseError {
        JSONParseError(position < bytes.count ? message : "unexpected end of input", at: position)
    }

    public mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let start = position
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard current == expected else { throw error(position == start ? "expected a value" : "invalid literal") }
            position += 1
        }
    }

    // MARK: Strings

    /// Called at the opening quote; checks the whole string and returns with the position past the
    /// closing one.
    public mutating func scanString() throws(JSONParseError) -> StringToken {
        position += 1
        let start = position
        var hasEscapes = false
        while true {
            skipPlainASCII()
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return StringToken(content: start..<position - 1, hasEscapes: hasEscapes)
            case UInt8(ascii: "\\"):
                hasEscapes = true
                try skipEscape()
            case 0..<0x20:
                throw error("control character in string")
            case 0x80...:
                position += try utf8SequenceLength()
            default:
                position += 1
            }
        }
    }

    /// Eight bytes at a time, straight to the first that is not plain ASCII in a string: `"`, `\`,
    /// a control character or a byte of a longer UTF-8 sequence (or to the last few bytes).
    @inline(__always)
    private mutating func skipPlainASCII() {
        while position + 8 <= bytes.count {
            let special = Self.specialBytes(UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self)))
            guard special == 0 else {
                position += special.trailingZeroBitCount >> 3
                return
            }
            position += 8
        }
    }

    /// The high bit of each byte of `word` (first byte lowest) that is not plain ASCII in a
    /// string. Exact up to the first such byte; bytes after it may be marked too, as a borrow from
    /// it can carry into them, so only the lowest mark counts.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        // Byte patterns spelled out, not `ones &* byte`: Swift 6 declares FixedWidthInteger's `&*`
        // for macOS 15, which scripts/check-availability.py refuses.
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ 0x2222_2222_2222_2222, backslashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
        // A byte is zero where `x - 1` borrows into its high bit and `x` had none.
        // One statement per byte kind: as one expression Swift 6.0 took 0.7 s to type-check it.
        let quote: UInt64 = (quotes &- ones) & ~quotes
        let backslash: UInt64 = (backslashes &- ones) & ~backslashes
        let control: UInt64 = (word &- 0x2020_2020_2020_2020) & ~word
        let special = quote | backslash | control
        return (special | word) & highs
    }

    /// The text of a string scanned by `scanString`, its escapes decoded.
    public func decode(_ token: StringToken) -> String {
        let content = UnsafeBufferPointer(rebasing: bytes[token.content])
        guard token.hasEscapes else { return String(decoding: content, as: UTF8.self) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(content.count)
        var index = 0
        while index < content.count {
            let byte = content[index]
            guard byte == UInt8(ascii: "\\") else {
                decoded.append(byte)
                index += 1
                continue
            }
            let letter = content[index + 1]
            index += 2
            switch letter {
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = Self.hex4(content, at: index)
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {  // checked by scanString: a low surrogate follows
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (Self.hex4(content, at: index + 2) - 0xDC00)
                    index += 6
                }
                Self.appendUTF8(scalar, to: &decoded)
            default: decoded.append(letter)  // `"`, `\` and `/` stand for themselves
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// Called at a backslash: checks one escape and moves past it.
    private mutating func skipEscape() throws(JSONParseError) {
        position += 1
        guard let letter = current else { throw error("unterminated string") }
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 1
        case UInt8(ascii: "u"):
            let escapeStart = position - 1
            position += 1
            let scalar = try scanHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate only means something together with a low one.
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count,
                      bytes[position + 1] == UInt8(ascii: "u") else {
                    throw JSONParseError("unpaired surrogate escape", at: escapeStart)
                }
                position += 2
                guard (0xDC00...0xDFFF).contains(try scanHex4()) else {
                    throw JSONParseError("unpaired surrogate escape", at: escapeStart)
                }
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw JSONParseError("unpaired surrogate escape", at: escapeStart)
            }
        default:
            throw error("invalid escape")
        }
    }

    private mutating func scanHex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = hexDigitValue(byte) else { throw error("expected four hex digits") }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private static func hex4(_ content: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32 {
        (index..<index + 4).reduce(0) { $0 << 4 | UInt32(hexDigitValue(content[$1]) ?? 0) }
    }

    static func appendUTF8(_ scalar: UInt32, to bytes: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            bytes.append(UInt8(scalar))
        case ..<0x800:
            bytes.append(UInt8(0xC0 | scalar >> 6))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            bytes.append(UInt8(0xE0 | scalar >> 12))
            bytes.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        default:
            bytes.append(UInt8(0xF0 | scalar >> 18))
            bytes.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            bytes.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// The length of the well-formed UTF-8 sequence at the position (Unicode
    /// table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
    private func utf8SequenceLength() throws(JSONParseError) -> Int {
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

    // MARK: Numbers

    private func isDigit(_ i: Int) -> Bool {
        i < bytes.count && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() -> Range<Int> {
        let start = position
        while isDigit(position) { position += 1 }
        return start..<position
    }

    /// One number literal: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    public mutating func scanNumber() throws(JSONParseError) -> JSONNumber {
        var n = JSONNumber(start: position)
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") {
            n.negative = true
            position += 1
        }
        guard isDigit(position) else { throw JSONParseError("expected a digit", at: position) }
        if bytes[position] == UInt8(ascii: "0") {
            if isDigit(position + 1) { throw JSONParseError("leading zeros are not allowed", at: position) }
            n.integerDigits = position..<position + 1
            position += 1
        } else {
            n.integerDigits = skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard isDigit(position) else { throw JSONParseError("expected a digit after '.'", at: position) }
            n.fractionDigits = skipDigits()
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            var negativeExponent = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                negativeExponent = bytes[position] == UInt8(ascii: "-")
                position += 1
            }
            guard isDigit(position) else { throw JSONParseError("expected a digit in the exponent", at: position) }
            var e = 0
            for i in skipDigits() {
                e = min(e * 10 + Int(bytes[i] - UInt8(ascii: "0")), JSONNumber.exponentLimit)
            }
            n.exponent = negativeExponent ? -e : e
        }
        n.end = position
        return n
    }

    // MARK: Whole values

    /// Checks one whole value and moves past it without building anything; `depth` counts the
    /// arrays and objects it sits in. Never recurses. Returns how many elements (or members) the
    /// value has when it is an array (or object), 0 otherwise: a reader sizes a table with it.
    @discardableResult
    public mutating func skipValue(depth: Int, maxDepth: Int) throws(JSONParseError) -> Int {
        // One bit per open container, 1 for an object; nesting beyond 64 keeps the rest in `deeper`.
        var open: UInt64 = 0, level = 0
        // The commas between the outermost container's elements, once it has one.
        var outerCommas = 0, outerHasElements = false
        var deeper: [Bool] = []
        func push(_ isObject: Bool) {
            if level >= 64 { deeper.append(open >> 63 == 1) }
            open = open << 1 | (isObject ? 1 : 0)
            level += 1
        }
        func pop() {
            open >>= 1
            level -= 1
            if level >= 64, let restored = deeper.popLast(), restored { open |= 1 << 63 }
        }
        while true {
            // A value.
            guard let first = current else { throw error("expected a value") }
            switch first {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                guard depth + level < maxDepth else { throw error("nesting deeper than \(maxDepth)") }
                position += 1
                skipWhitespace()
                let isObject = first == UInt8(ascii: "{")
                if current == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    position += 1
                } else {
                    if level == 0 { outerHasElements = true }
                    push(isObject)
                    if isObject { try skipKey() }
                    continue
                }
            case UInt8(ascii: "\""): _ = try scanString()
            case UInt8(ascii: "t"): try expectLiteral("true")
            case UInt8(ascii: "f"): try expectLiteral("false")
            case UInt8(ascii: "n"): try expectLiteral("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try scanNumber()
            default: throw error("expected a value")
            }
            // What follows it in each container it closes.
            while level > 0 {
                skipWhitespace()
                let inObject = open & 1 == 1
                if current == UInt8(ascii: ",") {
                    if level == 1 { outerCommas += 1 }
                    position += 1
                    skipWhitespace()
                    if inObject { try skipKey() }
                    break
                }
                guard current == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw error(inObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
                position += 1
                pop()
            }
            if level == 0 { return outerHasElements ? outerCommas + 1 : 0 }
        }
    }

    /// Moves past a value that `skipValue` checked already, looking only at brackets, commas and
    /// quotes (a number or literal: up to the delimiter or space after it): reading a value nested
    /// in one that was skipped then costs one quick pass, not a second check. Returns what
    /// `skipValue` returns.
    public mutating func skipChecked() -> Int {
        switch current {
        case UInt8(ascii: "["), UInt8(ascii: "{"): break
        case UInt8(ascii: "\""):
            _ = scanCheckedString()
            return 0
        default:
            // A number or a literal: up to what follows it.
            while let byte = current, byte > 0x20, byte != UInt8(ascii: ","), byte != UInt8(ascii: "]"),
                  byte != UInt8(ascii: "}") {
                position += 1
            }
            return 0
        }
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") || current == UInt8(ascii: "}") {
            position += 1
            return 0
        }
        var level = 1, commas = 0
        while level > 0 {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""): _ = scanCheckedString()
            case UInt8(ascii: "["), UInt8(ascii: "{"): level += 1; position += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"): level -= 1; position += 1
            case UInt8(ascii: ","): commas += level == 1 ? 1 : 0; position += 1
            default: position += 1
            }
        }
        return commas + 1
    }

    /// A string `skipValue` checked already, from its opening quote: what `scanString` returns,
    /// found by looking only for the closing quote.
    public mutating func scanCheckedString() -> StringToken {
        position += 1
        let start = position
        var hasEscapes = false
        while true {
            skipPlainASCII()
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return StringToken(content: start..<position - 1, hasEscapes: hasEscapes)
            }
            hasEscapes = hasEscapes || byte == UInt8(ascii: "\\")
            position += byte == UInt8(ascii: "\\") ? 2 : 1
        }
    }

    /// A checked member name and its colon, as `scanKey` gives them.
    public mutating func scanCheckedKey() -> StringToken {
        let key = scanCheckedString()
        skipWhitespace()
        position += 1
        skipWhitespace()
        return key
    }

    /// A member name and its colon; leaves the position at the value.
    public mutating func scanKey() throws(JSONParseError) -> StringToken {
        guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
        let key = try scanString()
        try scanColon()
        return key
    }

    /// Called past a member name: its colon, and the space around it.
    @inline(__always)
    private mutating func scanColon() throws(JSONParseError) {
        // Most documents put nothing around it.
        if position + 1 < bytes.count, bytes[position] == UInt8(ascii: ":"), bytes[position + 1] > 0x20 {
            position += 1
            return
        }
        skipWhitespace()
        guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
        position += 1
        skipWhitespace()
    }

    private mutating func skipKey() throws(JSONParseError) {
        _ = try scanKey()
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
