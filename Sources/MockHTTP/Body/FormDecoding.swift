import MockSupport

/// What to do with a `%` that is not followed by two hex digits, or with bytes
/// that do not decode as UTF-8.
public enum MalformedEscape: Sendable {
    /// Keep the `%` as written and replace invalid UTF-8 with U+FFFD (browser behaviour).
    case keepLiteral
    /// Drop the whole name/value pair.
    case dropPair
}

/// The pieces of a form or query between separators, each split at its first `=` (none: the
/// value is empty), read in one pass as ranges of the bytes: no copy, and nothing allocated or
/// retained for a piece the caller skips. Empty pieces are skipped.
public struct FormPieces: Sequence, IteratorProtocol {
    private let bytes: ArraySlice<UInt8>
    private let separator: UInt8, otherSeparator: UInt8
    private var position: Int

    /// Pieces end at `separator` or `otherSeparator` (the same byte when there is one).
    public init(_ bytes: ArraySlice<UInt8>, separatedBy separator: UInt8, or otherSeparator: UInt8? = nil) {
        self.bytes = bytes
        self.separator = separator
        self.otherSeparator = otherSeparator ?? separator
        position = bytes.startIndex
    }

    public mutating func next() -> (name: Range<Int>, value: Range<Int>)? {
        while position < bytes.endIndex {
            let start = position
            var equals: Int?
            while position < bytes.endIndex {
                let byte = bytes[position]
                if byte == separator || byte == otherSeparator { break }
                if equals == nil, byte == UInt8(ascii: "=") { equals = position }
                position += 1
            }
            let end = position
            position += 1
            guard end > start else { continue }
            guard let equals else { return (start..<end, end..<end) }
            return (start..<equals, (equals + 1)..<end)
        }
        return nil
    }
}

/// `application/x-www-form-urlencoded` bodies, query strings, and percent-encoded paths.
public enum FormDecoding {
    /// The most pairs one form or query is read for; the rest are ignored. The course servers had
    /// such a cap (PHP's `max_input_vars` and Express's `parameterLimit`, both 1000), and it keeps
    /// a body of millions of tiny pairs from costing many times its size while it is read.
    public static let maxPairs = 1000

    /// The first `limit` pairs in order, repeats kept. Pieces are separated by `&` only (`;` is
    /// data), empty pieces are skipped (and not counted), and a piece without `=` has the value "".
    public static func pairs(_ bytes: [UInt8], malformed: MalformedEscape,
                             limit: Int = maxPairs) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        for (index, piece) in FormPieces(bytes[...], separatedBy: UInt8(ascii: "&")).enumerated() {
            guard index < limit else { break }
            switch malformed {
            case .keepLiteral:
                result.append((name: lenientDecode(bytes[piece.name]), value: lenientDecode(bytes[piece.value])))
            case .dropPair:
                if let n = strictDecode(bytes[piece.name], plusAsSpace: true),
                   let v = strictDecode(bytes[piece.value], plusAsSpace: true) {
                    result.append((name: n, value: v))
                }
            }
        }
        return result
    }

    /// Nil when an escape is malformed or the decoded bytes are not UTF-8.
    public static func percentDecode(_ s: some StringProtocol, plusAsSpace: Bool) -> String? {
        strictDecode(Array(s.utf8)[...], plusAsSpace: plusAsSpace)
    }

    /// The value of the last pair named `name`.
    public static func last(_ name: String, in pairs: [(name: String, value: String)]) -> String? {
        pairs.last { $0.name == name }?.value
    }

    /// Decoded straight into the string's storage, the one copy a piece costs: a malformed escape
    /// is kept as written, so unescaping cannot fail, and invalid UTF-8 is repaired with U+FFFD.
    private static func lenientDecode(_ bytes: ArraySlice<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            unescape(bytes, plusAsSpace: true, keepMalformed: true, into: out) ?? 0
        }
    }

    private static func strictDecode(_ bytes: ArraySlice<UInt8>, plusAsSpace: Bool) -> String? {
        var out = [UInt8](repeating: 0, count: bytes.count)
        guard let count = out.withUnsafeMutableBufferPointer({
            unescape(bytes, plusAsSpace: plusAsSpace, keepMalformed: false, into: $0)
        }) else { return nil }
        return String(validUTF8: out[..<count])
    }

    /// Decodes `+` and `%XX` into `out`, which has room for `bytes.count`: the bytes written, or
    /// nil on a malformed escape unless it is kept.
    private static func unescape(_ bytes: ArraySlice<UInt8>, plusAsSpace: Bool, keepMalformed: Bool,
                                 into out: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        var written = 0
        var i = bytes.startIndex
        while i < bytes.endIndex {
            var byte = bytes[i]
            i += 1
            if byte == UInt8(ascii: "%") {
                if bytes.endIndex - i >= 2, let high = hexDigitValue(bytes[i]), let low = hexDigitValue(bytes[i + 1]) {
                    byte = high << 4 | low
                    i += 2
                } else if !keepMalformed {
                    return nil
                }
            } else if byte == UInt8(ascii: "+") && plusAsSpace {
                byte = UInt8(ascii: " ")
            }
            out[written] = byte
            written += 1
        }
        return written
    }
}
