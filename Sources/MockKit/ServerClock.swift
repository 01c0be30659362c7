import Foundation
import MockHTTP
import MockSupport

/// The one clock every API, the `Date` header and `/_mock/clock` read (docs/admin.md#the-clock):
/// the wall clock, or an instant that stands still until it is moved (`--clock`, `POST /_mock/clock`).
/// It never reads earlier than an instant it already gave, unless moved there explicitly
/// (`set`, `DELETE /_mock/clock`, a reset of everything): a wall clock stepped back by NTP holds
/// still until it catches up, and `advance` only goes forward.
public final class ServerClock: @unchecked Sendable {
    /// The earliest and latest instants the clock may be moved to: years with four digits after 1970,
    /// which every API can write (a stamp's year keeps its width, a token is never negative).
    public static let range = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 253_402_300_799)

    /// How the clock is read after a start or a reset of everything: nil is the wall clock.
    public let start: Date?
    /// `standing` nil: the wall clock runs; `latestGiven`: the latest instant read, which the wall
    /// clock never reads earlier than.
    private let state: Locked<(standing: Date?, latestGiven: Date)>
    private let wallClock: @Sendable () -> Date

    /// `wallClock` is for tests that need a wall clock that steps back.
    public init(standingAt start: Date? = nil, wallClock: @escaping @Sendable () -> Date = { Date() }) {
        self.start = start
        state = Locked((start, .distantPast))
        self.wallClock = wallClock
    }

    public struct Reading: Sendable, Equatable {
        public var now: Date
        public var standsStill: Bool
    }

    /// The time now; what every stamp, expiry and `Date` header reads.
    public func now() -> Date {
        state.withLock { read(&$0) }
    }

    public func reading() -> Reading {
        state.withLock { Reading(now: read(&$0), standsStill: $0.standing != nil) }
    }

    private func read(_ clock: inout (standing: Date?, latestGiven: Date)) -> Date {
        let now = clock.standing ?? max(wallClock(), clock.latestGiven)
        clock.latestGiven = now
        return now
    }

    /// A move backwards, or past `range`.
    public struct MoveError: Error, Equatable {
        /// The reason, for the 400.
        public var detail: String
    }

    /// Forward by `seconds` (0 or more) from the time now; a running clock stands still from there.
    public func advance(by seconds: Double) throws(MoveError) {
        guard seconds.isFinite, seconds >= 0 else {
            throw MoveError(detail: "advance_seconds must be a number of seconds, 0 or more; use set to move the clock back")
        }
        try state.withLock { clock throws(MoveError) in
            let target = read(&clock).addingTimeInterval(seconds)
            guard target <= Self.range.upperBound else {
                throw MoveError(detail: "the clock would pass \(Self.text(Self.range.upperBound)), the latest instant it can show")
            }
            clock.standing = target
        }
    }

    /// To `instant`, standing still there, earlier than stamps already given if so asked.
    public func set(to instant: Date) throws(MoveError) {
        guard Self.range.contains(instant) else {
            throw MoveError(detail: "set must be an instant from \(Self.text(Self.range.lowerBound)) to \(Self.text(Self.range.upperBound))")
        }
        state.withLock { $0 = (standing: instant, latestGiven: instant) }
    }

    /// Back to the wall clock as it reads now, earlier or later than the clock stood (`DELETE /_mock/clock`).
    public func runWithWallClock() {
        state.withLock { $0 = (standing: nil, latestGiven: .distantPast) }
    }

    /// As after a start: standing at `start`, or the wall clock (`POST /_mock/reset`).
    public func restart() {
        state.withLock { $0 = (standing: start, latestGiven: start ?? .distantPast) }
    }

    // MARK: Text

    /// `2024-09-01T10:00:00Z`, with milliseconds only when the instant has them (`…:00.250Z`).
    public static func text(_ instant: Date) -> String {
        let milliseconds = Int((instant.timeIntervalSince1970 * 1000).rounded(.down))
        let stamp = ISO8601.format(milliseconds: milliseconds)
        return milliseconds % 1000 == 0 ? String(stamp.dropLast(5)) + "Z" : stamp
    }

    /// An RFC 3339 instant: `2024-09-01T10:00:00Z`, with a fraction of a second (`.5`) and an offset
    /// (`+02:00`) if need be; nil for anything else or an impossible date.
    public static func instant(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        // The date and the time, checked by the SQL form `YYYY-MM-DD HH:MM:SS` with the `T` made a space.
        guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
              let civil = CivilTime(sqlText: String(decoding: bytes[0..<10] + [32] + bytes[11..<19], as: UTF8.self))
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            let digits = bytes[(index + 1)...].prefix { (48...57).contains($0) }
            // Read as one decimal, so that `.123` is the Double nearest to 0.123.
            guard !digits.isEmpty, let value = Double("0." + String(decoding: digits, as: UTF8.self)) else { return nil }
            fraction = value
            index = digits.endIndex
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            // `hh:mm`, checked as a time of day.
            let zone = String(decoding: bytes[(index + 1)...], as: UTF8.self)
            guard let time = CivilTime(sqlText: "1970-01-01 " + zone + ":00") else { return nil }
            offset = time.unixSeconds * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        return Date(timeIntervalSince1970: Double(civil.unixSeconds - offset) + fraction)
    }
}
