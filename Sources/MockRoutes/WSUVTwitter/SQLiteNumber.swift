import MockKit

/// How SQLite decides that a text compared with a numeric-affinity column is a number: the whole
/// text, blanks around it allowed, is an integer or real literal (sqlite3AtoF accepting every byte).
/// Such a value sorts below every text value, which is why `get-tweets.cgi?date=2017` returned
/// every tweet from the real scripts; and it equals an integer of the same value, which is why
/// `del-tweet.cgi` with `tweet_id=143.0` deleted tweet 143.
enum SQLiteNumber {
    static func isNumeric(_ bytes: [UInt8]) -> Bool {
        literal(bytes) != nil
    }

    /// The integer a numeric text equals (`143.0`, ` 143`, `+143`, `143e0` are 143); nil for text,
    /// a fraction, or a value beyond 64 bits.
    static func integerValue(_ bytes: [UInt8]) -> Int? {
        guard let literal = literal(bytes) else { return nil }
        let text = String(decoding: literal, as: UTF8.self)
        if let exact = Int(text) { return exact }
        guard let value = Double(text), value == value.rounded(), abs(value) < 0x1p63 else { return nil }
        return Int(value)
    }

    /// A `DecimalLiteral` between SQLite's blanks (space, tab, LF, VT, FF, CR), without the blanks.
    private static func literal(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        let isBlank = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }),
              DecimalLiteral.matches(bytes[first...last]) else { return nil }
        return bytes[first...last]
    }
}
