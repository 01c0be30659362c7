import MockHTTP

/// A `created_at` time stamp, `YYYY-MM-DD HH:MM:SS` in UTC, kept as its seconds since 1970: eight
/// bytes in the row instead of a 19-byte string on the heap. Only stamps that name a real second
/// are accepted, so every one is written back byte for byte, and comparing the numbers orders
/// stamps as comparing their text does.
struct Stamp: Comparable {
    let unixSeconds: Int

    init(unixSeconds: Int) {
        self.unixSeconds = unixSeconds
    }

    /// Parses exactly 19 bytes of `YYYY-MM-DD HH:MM:SS`; nil for anything else or an impossible date.
    init?(_ text: UnsafeBufferPointer<UInt8>) {
        guard text.count == 19, text[4] == 45, text[7] == 45, text[10] == 32, text[13] == 58, text[16] == 58 else { return nil }
        func number(_ start: Int, _ digits: Int) -> Int? {
            var value = 0
            for index in start..<start + digits {
                let digit = Int(text[index]) &- 48
                guard digit >= 0 && digit <= 9 else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let time = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        // Day 0 or 31 November would name another day.
        guard CivilTime(unixSeconds: time.unixSeconds) == time else { return nil }
        unixSeconds = time.unixSeconds
    }

    /// The stamp as it was read (or as a new row's clock gave it).
    var text: String {
        let time = CivilTime(unixSeconds: unixSeconds)
        // Only a clock set past the year 9999 (or before 0) gives a year of another width.
        guard (0...9999).contains(time.year) else { return time.sqlText }
        return String(unsafeUninitializedCapacity: 19) { buffer in
            func put(_ value: Int, at start: Int, _ digits: Int) {
                var rest = value
                for index in (start..<start + digits).reversed() {
                    buffer[index] = UInt8(48 + rest % 10)
                    rest /= 10
                }
            }
            put(time.year, at: 0, 4)
            put(time.month, at: 5, 2)
            put(time.day, at: 8, 2)
            put(time.hour, at: 11, 2)
            put(time.minute, at: 14, 2)
            put(time.second, at: 17, 2)
            (buffer[4], buffer[7], buffer[10], buffer[13], buffer[16]) = (45, 45, 32, 58, 58)
            return 19
        }
    }

    static func < (lhs: Stamp, rhs: Stamp) -> Bool { lhs.unixSeconds < rhs.unixSeconds }
}
