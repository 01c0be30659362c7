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
    /// The most values (each string, number, literal, array and object counts one) a request body
    /// is built for. A built value costs up to ~100 bytes, so `[[0],[0],…]` of 16 MiB would cost
    /// some 400 MB; this keeps the cost under ~10 MB yet allows more values than a 100 kB body
    /// (Express's default limit) can hold, and far more than any course client sends.
    public static let requestBodyValueLimit = 100_000

    /// `maxDepth` counts nested arrays and objects. Parsing itself never recurses,
    /// but releasing, comparing and writing a `JSONValue` do, one call per level, so
    /// keep the limit in the hundreds for input from the network. Past `maxValues` values the
    /// parse stops (pass `requestBodyValueLimit` for a request body).
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 128,
                             maxValues: Int = .max) throws(JSONParseError) -> JSONValue {
        let result = Array(bytes).withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) in
                var scanner = JSONScanner(buffer)
                return try parseDocument(&scanner, maxDepth: maxDepth, maxValues: maxValues)
            }
        }
        return try result.get()
    }

    /// Whether `bytes` is exactly one JSON value, checked without building it.
    public static func validate(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = 128) throws(JSONParseError) {
        var scanner = JSONScanner(bytes)
        scanner.skipWhitespace()
        try scanner.skipValue(depth: 0, maxDepth: maxDepth)
        scanner.skipWhitespace()
        guard scanner.atEnd else { throw scanner.error("unexpected data after the JSON value") }
    }

    /// An array or object whose closing bracket has not been seen yet.
    private struct Open {
        var elements: [JSONValue] = []
        var members: [(key: String, value: JSONValue)] = []
        /// For objects, the key awaiting its value; nil for arrays.
        var key: String?
    }

    private static func parseDocument(_ scanner: inout JSONScanner, maxDepth: Int,
                                      maxValues: Int) throws(JSONParseError) -> JSONValue {
        // Containers live on this explicit stack instead of the call stack, so deep
        // nesting costs heap, is bounded by maxDepth, and cannot overflow the stack.
        var stack: [Open] = []
        var valueCount = 0
        scanner.skipWhitespace()
        nextValue: while true {
            var value: JSONValue
            guard let first = scanner.current else { throw scanner.error("expected a value") }
            valueCount += 1
            guard valueCount <= maxValues else { throw scanner.error("more than \(maxValues) values") }
            switch first {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                guard stack.count < maxDepth else { throw scanner.error("nesting deeper than \(maxDepth)") }
                let isObject = first == UInt8(ascii: "{")
                scanner.position += 1
                scanner.skipWhitespace()
                if scanner.current == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    scanner.position += 1
                    value = isObject ? .object(JSONObject()) : .array([])
                } else {
                    try stack.append(isObject ? Open(key: scanner.decode(scanner.scanKey())) : Open())
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                value = .string(scanner.decode(try scanner.scanString()))
            case UInt8(ascii: "t"):
                try scanner.expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try scanner.expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try scanner.expectLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let number = try scanner.scanNumber()
                value = .number(String(decoding: UnsafeBufferPointer(rebasing: scanner.bytes[number.start..<number.end]),
                                       as: UTF8.self))
            default:
                throw scanner.error("expected a value")
            }

            // Hand the finished value to the innermost open container; a closing
            // bracket finishes that container too, so repeat outwards.
            while true {
                scanner.skipWhitespace()
                guard let top = stack.indices.last else {
                    guard scanner.atEnd else { throw scanner.error("unexpected data after the JSON value") }
                    return value
                }
                let isObject = stack[top].key != nil
                if let key = stack[top].key {
                    stack[top].members.append((key: key, value: value))
                } else {
                    stack[top].elements.append(value)
                }
                if scanner.current == UInt8(ascii: ",") {
                    scanner.position += 1
                    scanner.skipWhitespace()
                    if isObject { stack[top].key = scanner.decode(try scanner.scanKey()) }
                    continue nextValue
                }
                guard scanner.current == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw scanner.error(isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
                scanner.position += 1
                let closed = stack.removeLast()
                value = isObject ? .object(JSONObject(closed.members)) : .array(closed.elements)
            }
        }
    }
}
