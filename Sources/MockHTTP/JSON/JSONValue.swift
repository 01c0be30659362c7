/// A parsed JSON document. Numbers keep the literal text exactly as it arrived, so
/// `2.0`, `1e400` and 400-digit integers survive untouched; ask `intValue` or
/// `doubleValue` when a Swift number is needed.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number literal as sent, e.g. `"2.0"` or `"-1e400"`.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON object with its members in arrival order. Repeated keys are kept;
/// lookups see the last one, as most JSON readers do.
public struct JSONObject: Sendable, Equatable {
    public var members: [(key: String, value: JSONValue)]

    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    /// The value of the last member named `key`.
    public subscript(key: String) -> JSONValue? {
        members.last { $0.key == key }?.value
    }

    /// Member names in arrival order, repeats included.
    public var keys: [String] { members.map(\.key) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension JSONValue {
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var numberText: String? {
        if case .number(let t) = self { return t }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// The number as an `Int` when it is exactly integral (`2`, `2.0`, `2e0`, `-0`)
    /// and fits; nil for fractions, out-of-range values and non-numbers.
    public var intValue: Int? {
        guard case .number(let text) = self else { return nil }
        return JSONNumber.exactInt(text)
    }

    /// The number as a finite `Double` (rounded to the nearest); nil when the
    /// magnitude overflows `Double` (e.g. `1e400`) or for non-numbers.
    public var doubleValue: Double? {
        guard case .number(let text) = self, JSONNumber.isValid(text),
              let d = Double(text), d.isFinite else { return nil }
        return d
    }
}

/// The parts of an RFC 8259 number literal, as ranges into the scanned bytes:
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
struct JSONNumber {
    var negative = false
    var integerDigits = 0..<0
    var fractionDigits = 0..<0
    /// The decimal exponent, clamped far outside any useful range so huge
    /// exponents cannot overflow.
    var exponent = 0

    static let exponentLimit = 1_000_000_000

    /// The value when `text` is one valid number literal that is exactly integral and fits.
    static func exactInt(_ text: String) -> Int? {
        var scanner = JSONNumberScanner(Array(text.utf8))
        guard let n = try? scanner.scan(), scanner.position == scanner.bytes.count else { return nil }
        return n.exactInt(in: scanner.bytes)
    }

    static func isValid(_ text: String) -> Bool {
        var scanner = JSONNumberScanner(Array(text.utf8))
        return (try? scanner.scan()) != nil && scanner.position == scanner.bytes.count
    }

    func exactInt(in bytes: [UInt8]) -> Int? {
        let zero = UInt8(ascii: "0")
        // Significant digits, with the fraction folded into the exponent.
        var digits = Array(bytes[integerDigits]) + bytes[fractionDigits]
        var power = exponent - fractionDigits.count
        while digits.last == zero {
            digits.removeLast()
            power += 1
        }
        guard let firstNonZero = digits.firstIndex(where: { $0 != zero }) else { return 0 }
        digits.removeFirst(firstNonZero)
        // Int.max has 19 digits, so anything longer cannot fit.
        guard power >= 0, digits.count + power <= 19 else { return nil }
        var value = 0
        for d in digits + Array(repeating: zero, count: power) {
            let digit = Int(d - zero)
            // Accumulate negatives downwards so Int.min is reachable.
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? shifted.subtractingReportingOverflow(digit)
                                      : shifted.addingReportingOverflow(digit)
            guard !o1, !o2 else { return nil }
            value = next
        }
        return value
    }
}

/// Reads one number literal from a byte array; shared by the parser and the
/// number helpers so both agree on the grammar.
struct JSONNumberScanner {
    let bytes: [UInt8]
    var position: Int

    init(_ bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    private func isDigit(_ i: Int) -> Bool {
        i < bytes.count && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() -> Range<Int> {
        let start = position
        while isDigit(position) { position += 1 }
        return start..<position
    }

    mutating func scan() throws(JSONParseError) -> JSONNumber {
        var n = JSONNumber()
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
        return n
    }
}
