import MockKit

/// How SQLite decides that a text compared with a numeric-affinity column is a number: the whole
/// text, blanks around it allowed, is an integer or real literal (sqlite3AtoF accepting every byte).
/// Such a value sorts below every text value, which is why `get-tweets.cgi?date=2017` returned
/// every tweet from the real scripts.
enum SQLiteNumber {
    /// A `DecimalLiteral` between SQLite's blanks (space, tab, LF, VT, FF, CR).
    static func isNumeric(_ bytes: [UInt8]) -> Bool {
        let isBlank = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) })
        else { return false }
        return DecimalLiteral.matches(bytes[first...last])
    }
}
