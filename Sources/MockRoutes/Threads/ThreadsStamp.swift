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
        var reader = StampReader()
        guard let stamp = reader.read(text) else { return nil }
        self = stamp
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

/// Reads stamps one after another, remembering the last date's first second: rows written in
/// order share their date with the row before, so most stamps need only their time of day read.
struct StampReader {
    /// The last date's 10 bytes, `YYYY-MM-DD`, as two words.
    private var lastDate: (UInt64, UInt16)?
    private var lastDateSeconds = 0

    /// Exactly 19 bytes of `YYYY-MM-DD HH:MM:SS`; nil for anything else or an impossible date.
    mutating func read(_ text: UnsafeBufferPointer<UInt8>) -> Stamp? {
        guard text.count == 19, text[10] == 32, text[13] == 58, text[16] == 58,
              let hour = Self.number(text, 11, 2), let minute = Self.number(text, 14, 2), let second = Self.number(text, 17, 2),
              hour < 24, minute < 60, second < 60 else { return nil }
        let raw = UnsafeRawBufferPointer(text)
        let date = (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
        if lastDate.map({ $0 != date }) ?? true {
            guard text[4] == 45, text[7] == 45, let year = Self.number(text, 0, 4), let month = Self.number(text, 5, 2),
                  let day = Self.number(text, 8, 2), (1...12).contains(month),
                  day >= 1, day <= Self.days(inMonth: month, of: year) else { return nil }
            lastDateSeconds = CivilTime(year: year, month: month, day: day).unixSeconds
            lastDate = date
        }
        return Stamp(unixSeconds: lastDateSeconds + hour * 3600 + minute * 60 + second)
    }

    /// The decimal number in `digits` bytes from `start`; nil unless all are ASCII digits.
    private static func number(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ digits: Int) -> Int? {
        var value = 0
        for index in start..<start + digits {
            let digit = Int(text[index]) &- 48
            guard digit >= 0 && digit <= 9 else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// Gregorian, year 0 a leap year as every 400th is: the calendar `CivilTime` counts in.
    private static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
