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
        lhs.members.elementsEqual(rhs.members) { $0.key == $1.key && $0.value == $1.value }
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
public struct JSONNumber {
    /// Where the literal starts and ends.
    public var start: Int
    public var end = 0
    var negative = false
    var integerDigits = 0..<0
    var fractionDigits = 0..<0
    /// The decimal exponent, clamped far outside any useful range so huge
    /// exponents cannot overflow.
    var exponent = 0

    static let exponentLimit = 1_000_000_000

    init(start: Int) {
        self.start = start
    }

    /// The value when `text` is one valid number literal that is exactly integral and fits.
    static func exactInt(_ text: String) -> Int? {
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes)
            guard let n = try? scanner.scanNumber(), scanner.atEnd else { return nil }
            return n.exactInt(in: bytes)
        }
    }

    static func isValid(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes)
            return (try? scanner.scanNumber()) != nil && scanner.atEnd
        }
    }

    /// The value when it is exactly integral (`2`, `2.0`, `2e0`, `-0`) and fits in an `Int`.
    public func exactInt(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let zero = UInt8(ascii: "0")
        if fractionDigits.isEmpty, exponent == 0, integerDigits.count <= 18 {
            // The usual case, a plain integer that cannot overflow.
            let magnitude = bytes[integerDigits].reduce(0) { $0 * 10 + Int($1 - zero) }
            return negative ? -magnitude : magnitude
        }
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
