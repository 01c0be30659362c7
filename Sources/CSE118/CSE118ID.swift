import Foundation
import MockHTTP

/// A UUID, the id of every member, workspace, channel and message, kept as its 16 bytes: rows
/// hold no string for their ids, and the id index hashes and compares 16 bytes, not 36 characters.
/// Its text is always written in lower case (docs/apis/cse118.md#how-strings-are-compared).
struct CSE118ID: Hashable, Comparable {
    /// The first 16 hexadecimal digits, then the last 16: numeric order is the text's order.
    private(set) var high: UInt64
    private(set) var low: UInt64

    /// The nil UUID, all zeros: a placeholder until a row's id is read.
    init() {
        (high, low) = (0, 0)
    }

    /// A random (version 4) UUID.
    static func random() -> CSE118ID {
        withUnsafeBytes(of: UUID().uuid) { bytes in
            CSE118ID(high: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
                     low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    private init(high: UInt64, low: UInt64) {
        (self.high, self.low) = (high, low)
    }

    /// 8-4-4-4-12 hexadecimal digits, lower case only unless `anyCase`; nil for anything else.
    init?(_ text: UnsafeBufferPointer<UInt8>, anyCase: Bool = false) {
        let dash = UInt8(ascii: "-")
        guard text.count == 36, text[8] == dash, text[13] == dash, text[18] == dash, text[23] == dash else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        // Every digit's value or'ed together: one check at the end instead of one per byte.
        var seen: UInt8 = 0
        Self.add(text[0..<8], to: &high, seen: &seen)
        Self.add(text[9..<13], to: &high, seen: &seen)
        Self.add(text[14..<18], to: &high, seen: &seen)
        Self.add(text[19..<23], to: &low, seen: &seen)
        Self.add(text[24..<36], to: &low, seen: &seen)
        guard seen < (anyCase ? 0x20 : 0x10) else { return nil }
        self.init(high: high, low: low)
    }

    private static func add(_ digits: Slice<UnsafeBufferPointer<UInt8>>, to half: inout UInt64, seen: inout UInt8) {
        for digit in digits {
            let value = digitValues[Int(digit)]
            seen |= value
            half = half << 4 | UInt64(value & 0xF)
        }
    }

    /// Each byte's value as a hexadecimal digit: 0-15 for `0`-`9` and `a`-`f`, 0x10 more for `A`-`F`,
    /// 0xFF for any other byte. Allocated once and kept, so reading it takes no reference counting.
    private nonisolated(unsafe) static let digitValues: UnsafePointer<UInt8> = {
        let values = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for byte in UInt8.min...UInt8.max {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values[Int(byte)] = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): values[Int(byte)] = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): values[Int(byte)] = 0x10 | (byte - UInt8(ascii: "A") + 10)
            default: values[Int(byte)] = 0xFF
            }
        }
        return UnsafePointer(values)
    }()

    init?(_ text: String, anyCase: Bool = false) {
        var text = text
        guard let id = text.withUTF8({ CSE118ID($0, anyCase: anyCase) }) else { return nil }
        self = id
    }

    /// The 36 lower-case characters.
    var text: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var digit = 0
            for index in 0..<36 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    buffer[index] = UInt8(ascii: "-")
                    continue
                }
                let half = digit < 16 ? high : low
                let nibble = UInt8(truncatingIfNeeded: half >> (60 - 4 * UInt64(digit % 16))) & 0xF
                buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                digit += 1
            }
            return 36
        }
    }

    static func < (lhs: CSE118ID, rhs: CSE118ID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

/// A message's `posted` time, `2023-05-01T12:18:48.000Z`, kept as milliseconds since 1970: every
/// text the seed check accepts is one real calendar time, which prints back as the same text.
struct CSE118Timestamp: Comparable {
    private var milliseconds: Int

    /// 1970-01-01T00:00:00.000Z, a placeholder until a message's time is read.
    init() {
        milliseconds = 0
    }

    init(_ date: Date) {
        milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Exactly `YYYY-MM-DDTHH:MM:SS.mmmZ`, a real calendar time; nil for anything else.
    init?(_ text: UnsafeBufferPointer<UInt8>) {
        guard text.count == 24, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"),
              text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"), text[19] == UInt8(ascii: "."),
              text[23] == UInt8(ascii: "Z") else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in text[start..<start + count] {
                guard byte &- UInt8(ascii: "0") < 10 else { return nil }
                value = value * 10 + Int(byte &- UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
              let minute = number(14, 2), let second = number(17, 2), let millisecond = number(20, 3),
              (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = month == 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].contains(month) ? 30 : 31
        guard (1...days).contains(day) else { return nil }
        let time = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        milliseconds = time.unixSeconds * 1000 + millisecond
    }

    init?(_ text: String) {
        var text = text
        guard let time = text.withUTF8({ CSE118Timestamp($0) }) else { return nil }
        self = time
    }

    var text: String { ISO8601.format(milliseconds: milliseconds) }

    static func < (lhs: CSE118Timestamp, rhs: CSE118Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }
}
