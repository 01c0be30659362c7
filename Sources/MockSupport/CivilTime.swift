import Foundation

/// Calendar arithmetic in UTC without Foundation's calendars, for hot-path time stamps.
public struct CivilTime: Sendable, Equatable {
    public var year, month, day, hour, minute, second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
    }

    /// The UTC calendar time of a UNIX time stamp (Howard Hinnant's days-to-civil algorithm).
    public init(unixSeconds: Int) {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondsOfDay = unixSeconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let month = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (month <= 2 ? 1 : 0), month: month, day: doy - (153 * mp + 2) / 5 + 1,
                  hour: secondsOfDay / 3600, minute: secondsOfDay / 60 % 60, second: secondsOfDay % 60)
    }

    /// Seconds since 1970 of this UTC calendar time (days-from-civil).
    public var unixSeconds: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return (era * 146_097 + doe - 719_468) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// 0 is Sunday.
    public var weekday: Int {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        return ((days % 7) + 11) % 7
    }

    /// `2019-11-20 15:30:00`
    public var sqlText: String {
        "\(zeroPadded(year, 4))-\(zeroPadded(month))-\(zeroPadded(day)) \(zeroPadded(hour)):\(zeroPadded(minute)):\(zeroPadded(second))"
    }

    /// Parses `YYYY-MM-DD HH:MM:SS` exactly; nil for anything else or an impossible date.
    public init?(sqlText text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 19, bytes[4] == 45, bytes[7] == 45, bytes[10] == 32, bytes[13] == 58, bytes[16] == 58
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard CivilTime(unixSeconds: unixSeconds) == self else { return nil }
    }
}

/// ISO-8601 time stamps in UTC with milliseconds: `2026-11-21T23:59:01.123Z`.
public enum ISO8601 {
    public static func format(_ date: Date) -> String {
        format(milliseconds: Int((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// For times kept as whole milliseconds since 1970, so sums of them print exactly.
    public static func format(milliseconds: Int) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let time = CivilTime(unixSeconds: seconds)
        return "\(zeroPadded(time.year, 4))-\(zeroPadded(time.month))-\(zeroPadded(time.day))T\(zeroPadded(time.hour)):\(zeroPadded(time.minute))"
            + ":\(zeroPadded(time.second)).\(zeroPadded(milliseconds - seconds * 1000, 3))Z"
    }
}

/// Times of day on this machine's clock, for console lines.
public enum LocalTime {
    /// `HH:MM:SS.mmm` in the machine's local time, what a person at the console reads.
    public static func timeOfDay(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let millis = Int(date.timeIntervalSince1970 * 1000) % 1000
        return "\(zeroPadded(Int(parts.tm_hour))):\(zeroPadded(Int(parts.tm_min))):\(zeroPadded(Int(parts.tm_sec))).\(zeroPadded(millis, 3))"
    }
}

/// `value` in decimal with leading zeros up to `width` digits (`07`), for time stamps.
public func zeroPadded(_ value: Int, _ width: Int = 2) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}
