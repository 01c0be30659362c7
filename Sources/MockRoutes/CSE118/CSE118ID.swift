import Foundation
import MockHTTP
import MockKit
import MockSupport

/// A UUID, the id of every member, workspace, channel and message, as clients decode it; written
/// in lower case (docs/apis/cse118.md#how-strings-are-compared), as the real server wrote it.
struct CSE118ID: SeedKey, Comparable {
    let uuid: UUID

    /// 8-4-4-4-12 lower-case hexadecimal digits; nil for anything else (Swift clients decode `UUID`).
    init?(_ text: String) {
        guard let uuid = Self.parse(text.utf8, anyCase: false) else { return nil }
        self.uuid = uuid
    }

    /// The same in any letter case, as requests name ids (Swift's `uuidString` is upper case).
    init?(anyCase text: String) {
        guard let uuid = Self.parse(text.utf8, anyCase: true) else { return nil }
        self.uuid = uuid
    }

    /// No row's id: an input the request did not need.
    static let unset = CSE118ID("00000000-0000-0000-0000-000000000000")!

    /// A random version 4 UUID: 122 random bits, the version (4) and the variant (binary 10) set.
    static func random(_ random: RandomStream) -> CSE118ID {
        let high = random.next() & ~0xF000 | 0x4000, low = random.next() & ~(0b11 << 62) | 0b10 << 62
        return CSE118ID(uuid: uuid(high: high, low: low))
    }

    private init(uuid: UUID) {
        self.uuid = uuid
    }

    /// The UUID whose first eight bytes are `high` and last eight `low`, most significant first.
    private static func uuid(high: UInt64, low: UInt64) -> UUID {
        func byte(_ word: UInt64, _ index: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: word >> (56 - 8 * index)) }
        return UUID(uuid: (byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3), byte(high, 4), byte(high, 5),
                           byte(high, 6), byte(high, 7), byte(low, 0), byte(low, 1), byte(low, 2), byte(low, 3),
                           byte(low, 4), byte(low, 5), byte(low, 6), byte(low, 7)))
    }

    /// The 36 lower-case characters.
    var text: String {
        let bytes = uuid.uuid
        let values: [UInt8] = [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5, bytes.6, bytes.7,
                               bytes.8, bytes.9, bytes.10, bytes.11, bytes.12, bytes.13, bytes.14, bytes.15]
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, value) in values.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(value >> 4)])
            text.append(digits[Int(value & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// 8-4-4-4-12 hexadecimal digits (upper case only with `anyCase`), read in one pass
    /// (Foundation's `UUID(uuidString:)` accepts any case, and on Linux scans with `sscanf`).
    private static func parse(_ text: some Collection<UInt8>, anyCase: Bool) -> UUID? {
        guard text.count == 36 else { return nil }
        // One bit per place of a dash; the first 16 digits (up to place 18) make the high half.
        let dashes: UInt64 = 1 << 8 | 1 << 13 | 1 << 18 | 1 << 23
        let values = anyCase ? anyCaseValues : lowerCaseValues
        var high: UInt64 = 0, low: UInt64 = 0, index = 0
        for byte in text {
            // Each byte's digit value is looked up in a table, not worked out by comparisons.
            let value = values[Int(byte)]
            guard value == (dashes >> index & 1 == 1 ? 16 : value & 15) else { return nil }
            if value < 16 {
                if index < 18 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            }
            index += 1
        }
        return uuid(high: high, low: low)
    }

    /// Each byte's value as a hexadecimal digit; 16 for a dash, 17 for anything else.
    private static let lowerCaseValues = digitValues(anyCase: false), anyCaseValues = digitValues(anyCase: true)

    private static func digitValues(anyCase: Bool) -> [UInt8] {
        (0...255).map { (byte: UInt8) -> UInt8 in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F") where anyCase: byte - UInt8(ascii: "A") + 10
            case UInt8(ascii: "-"): 16
            default: 17
            }
        }
    }

    /// A lower-case UUID read from a seed.
    static func read(_ value: inout SeedReader) throws(SeedError) -> CSE118ID {
        try read(&value) { "expected a lowercase UUID, got \($0)" }
    }

    /// A lower-case UUID read from a seed, parsed from its bytes (no `String` made for it);
    /// `problem` says what is wrong with any other text.
    static func read(_ value: inout SeedReader, problem: (String) -> String) throws(SeedError) -> CSE118ID {
        var text = value
        guard let uuid = try value.string({ Self.parse($0, anyCase: false) }) else { throw value.fail(problem(try text.string())) }
        return CSE118ID(uuid: uuid)
    }

    var rowKey: RowKey { .string(text) }

    init?(rowKey: RowKey) {
        guard case let .string(text) = rowKey else { return nil }
        self.init(text)
    }

    var description: String { text }

    /// The order of the texts.
    static func < (lhs: CSE118ID, rhs: CSE118ID) -> Bool { lhs.text < rhs.text }
}

/// A message's `posted` time, exactly `YYYY-MM-DDTHH:MM:SS.mmmZ` and a real calendar time: kept
/// as its text, whose order is the times' order (four-digit years, fixed widths).
struct CSE118Time: Comparable {
    let text: String

    init(_ date: Date) {
        text = ISO8601.format(date)
    }

    /// Nil for any other text, or a day the month lacks.
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "."),
              bytes[23] == UInt8(ascii: "Z") else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in bytes[start..<start + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
              let minute = number(14, 2), let second = number(17, 2), number(20, 3) != nil,
              (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = month == 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].contains(month) ? 30 : 31
        guard (1...days).contains(day) else { return nil }
        self.text = text
    }

    static func < (lhs: CSE118Time, rhs: CSE118Time) -> Bool { lhs.text < rhs.text }
}
