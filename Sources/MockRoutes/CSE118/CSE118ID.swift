import Foundation
import MockHTTP
import MockKit
import MockSupport

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

    /// A random version 4 UUID: 122 random bits, the version (4) and the variant (binary 10) set.
    static func random(_ random: RandomStream) -> CSE118ID {
        CSE118ID(high: random.next() & ~0xF000 | 0x4000, low: random.next() & ~(0b11 << 62) | 0b10 << 62)
    }

    private init(high: UInt64, low: UInt64) {
        (self.high, self.low) = (high, low)
    }

    /// 8-4-4-4-12 hexadecimal digits, lower case only unless `anyCase`; nil for anything else.
    init?(_ text: UnsafeBufferPointer<UInt8>, anyCase: Bool = false) {
        let dash = UInt8(ascii: "-")
        guard text.count == 36, let start = text.baseAddress,
              text[8] == dash, text[13] == dash, text[18] == dash, text[23] == dash else { return nil }
        let bytes = UnsafeRawPointer(start)
        func eight(_ offset: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        func four(_ offset: Int) -> UInt64 { UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
        // Eight digits at a time: 0-7, 9-12 with 14-17, 19-22 with 24-27, 28-35.
        guard let first = Self.number(eight(0), anyCase: anyCase), let second = Self.number(four(9) | four(14) << 32, anyCase: anyCase),
              let third = Self.number(four(19) | four(24) << 32, anyCase: anyCase), let fourth = Self.number(eight(28), anyCase: anyCase)
        else { return nil }
        self.init(high: first << 32 | second, low: third << 32 | fourth)
    }

    /// The number that eight hexadecimal digits spell, the first digit in the word's lowest byte;
    /// nil unless every byte is `0`-`9` or `a`-`f` (or `A`-`F` with `anyCase`). All eight bytes are
    /// checked and converted at once, with no branch per byte.
    private static func number(_ word: UInt64, anyCase: Bool) -> UInt64? {
        // Products are spelled with `*` (none overflows) or `&*=`: FixedWidthInteger's `&*` is
        // declared for macOS 15, which scripts/check-availability.py refuses.
        let ones: UInt64 = 0x0101_0101_0101_0101, tops = ones * 0x80
        // In an ASCII byte, adding 0x80 - n sets the top bit exactly when the byte is at least n.
        // A byte of 0x80 or more is in neither range, whatever carries into it, and only such a
        // byte carries into the next.
        func atLeast(_ word: UInt64, _ n: UInt64) -> UInt64 { (word &+ ones * (0x80 - n)) & tops }
        let lowered = anyCase ? word | ones * 0x20 : word
        let digits = atLeast(word, 0x30) & ~atLeast(word, 0x3A)
        let letters = atLeast(lowered, 0x61) & ~atLeast(lowered, 0x67)
        guard digits | letters == tops else { return nil }
        // A digit's low four bits are its value; a letter's are 1-6, for 10-15 (9 more: its top bit
        // moved down to 8 and to 1).
        let values = (word & (ones * 0x0F)) &+ (letters >> 4 | letters >> 7)
        // Then each byte's four bits moved next to its neighbour's, the first digit highest.
        let pairs = (values & 0x000F_000F_000F_000F) << 4 | (values >> 8) & 0x000F_000F_000F_000F
        let quads = (pairs & 0x0000_00FF_0000_00FF) << 8 | (pairs >> 16) & 0x0000_00FF_0000_00FF
        return (quads & 0xFFFF) << 16 | (quads >> 32) & 0xFFFF
    }

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
