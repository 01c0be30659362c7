import Foundation
import MockHTTP
import MockKit

/// A UUID, the id of every member, workspace, channel and message, as clients decode it; written
/// in lower case (docs/apis/cse118.md#how-strings-are-compared), as the real server wrote it.
struct CSE118ID: SeedKey, Comparable {
    let uuid: UUID

    /// 8-4-4-4-12 lower-case hexadecimal digits; nil for anything else (Swift clients decode `UUID`).
    init?(_ text: String) {
        guard Self.isUUID(text.utf8, anyCase: false), let uuid = UUID(uuidString: text) else { return nil }
        self.uuid = uuid
    }

    /// The same in any letter case, as requests name ids (Swift's `uuidString` is upper case).
    init?(anyCase text: String) {
        guard Self.isUUID(text.utf8, anyCase: true), let uuid = UUID(uuidString: text) else { return nil }
        self.uuid = uuid
    }

    /// No row's id: an input the request did not need.
    static let unset = CSE118ID("00000000-0000-0000-0000-000000000000")!

    /// A random version 4 UUID: 122 random bits, the version (4) and the variant (binary 10) set.
    static func random(_ random: RandomStream) -> CSE118ID {
        let high = random.next() & ~0xF000 | 0x4000, low = random.next() & ~(0b11 << 62) | 0b10 << 62
        func digits(_ half: UInt64) -> String {
            let hex = String(half, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        var text = ""
        for (index, digit) in (digits(high) + digits(low)).enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text += "-" }
            text.append(digit)
        }
        return CSE118ID(text)!
    }

    /// The 36 lower-case characters.
    var text: String { uuid.uuidString.lowercased() }

    private static func isUUID(_ text: String.UTF8View, anyCase: Bool) -> Bool {
        guard text.count == 36 else { return false }
        var index = 0
        for byte in text {
            defer { index += 1 }
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
            case UInt8(ascii: "A")...UInt8(ascii: "F") where anyCase: continue
            default: return false
            }
        }
        return true
    }

    /// A lower-case UUID read from a seed.
    static func read(_ value: inout SeedReader) throws(SeedError) -> CSE118ID {
        let text = try value.string()
        guard let id = CSE118ID(text) else { throw value.fail("expected a lowercase UUID, got \(text)") }
        return id
    }

    var rowKey: RowKey { .string(text) }

    init?(rowKey: RowKey) {
        guard case let .string(text) = rowKey else { return nil }
        self.init(text)
    }

    var description: String { text }

    /// The order of the texts (upper or lower case alike).
    static func < (lhs: CSE118ID, rhs: CSE118ID) -> Bool { lhs.uuid.uuidString < rhs.uuid.uuidString }
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
