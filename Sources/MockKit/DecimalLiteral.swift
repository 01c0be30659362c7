/// The number literals that PHP, JavaScript and SQLite read alike:
/// `^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`.
public enum DecimalLiteral {
    public static func matches(_ text: some Collection<UInt8>) -> Bool {
        var rest = text[...]
        func skipDigits() -> Int {
            let count = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            rest.removeFirst(count)
            return count
        }
        func skip(_ characters: String) -> Bool {
            guard let first = rest.first, characters.utf8.contains(first) else { return false }
            rest.removeFirst()
            return true
        }
        _ = skip("+-")
        let wholeDigits = skipDigits()
        let fractionDigits = skip(".") ? skipDigits() : 0
        guard wholeDigits + fractionDigits > 0 else { return false }
        if skip("eE") {
            _ = skip("+-")
            guard skipDigits() > 0 else { return false }
        }
        return rest.isEmpty
    }
}
