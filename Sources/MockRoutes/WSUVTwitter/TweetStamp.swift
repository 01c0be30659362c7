import MockHTTP

/// A tweet's time stamp, `YYYY-MM-DD HH:MM:SS`, kept as its fourteen digits in one number
/// (`2016-04-21 17:05:43` → 20160421170543): no string to allocate for each of 100,000 tweets.
/// Every stamp has the one shape, so the numbers sort as the stamps' bytes do. Only the shape is
/// checked: stored stamps are text, never dates (docs/apis/wsuv-twitter.md#accounts).
struct TweetStamp: Comparable {
    private let digits: Int

    /// The stamp the UTF-8 `bytes` spell; nil unless they have the shape `^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`.
    init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == Self.length else { return nil }
        var digits = 0
        for position in 0..<Self.length {
            let byte = bytes[position]
            if let separator = Self.separator(at: position) {
                guard byte == separator else { return nil }
            } else {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                digits = digits * 10 + Int(digit)
            }
        }
        self.digits = digits
    }

    /// The stamp of a calendar time, truncated to the second. A time before year 0000 or after
    /// 9999, where SQLite's own date functions stop, is taken as the nearer end of that range
    /// (docs/apis/wsuv-twitter.md#time-stamps).
    init(_ time: CivilTime) {
        let digits = ((((time.year * 100 + time.month) * 100 + time.day) * 100 + time.hour) * 100 + time.minute) * 100 + time.second
        self.digits = min(max(digits, 0000_01_01_00_00_00), 9999_12_31_23_59_59)
    }

    var text: String {
        String(unsafeUninitializedCapacity: Self.length) { buffer in
            write(to: buffer)
            return Self.length
        }
    }

    /// Whether the stamp's text sorts after `date`, byte by byte, as SQLite compares two texts.
    func isAfter(_ date: [UInt8]) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.length) { buffer in
            write(to: buffer)
            return date.lexicographicallyPrecedes(buffer)
        }
    }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.digits < rhs.digits }

    private static let length = 19

    private static func separator(at position: Int) -> UInt8? {
        switch position {
        case 4, 7: return UInt8(ascii: "-")
        case 10: return UInt8(ascii: " ")
        case 13, 16: return UInt8(ascii: ":")
        default: return nil
        }
    }

    /// The text's bytes into the first `length` bytes of `buffer`, last digit first.
    private func write(to buffer: UnsafeMutableBufferPointer<UInt8>) {
        var rest = digits
        for position in (0..<Self.length).reversed() {
            if let separator = Self.separator(at: position) {
                buffer[position] = separator
            } else {
                buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
        }
    }
}
