import MockKit

/// One string of a row, in 8 bytes instead of a 16-byte `String` (which past 15 UTF-8 bytes, as
/// most emails and messages are, is a heap allocation of its own besides): up to 7 bytes in the
/// span itself, as Swift keeps its small strings, longer ones in `RowTexts`.
struct TextSpan: Equatable {
    /// Inline (top bit set): the length in bits 56-58 and the bytes from the lowest up. Otherwise
    /// where the bytes are in `RowTexts`: the start in the low 36 bits, the count in the next 27.
    /// A count of `longCount` marks a string of 128 MiB or more, kept apart: its start is its place
    /// in `RowTexts.longTexts`.
    fileprivate let bits: UInt64

    fileprivate static let inlineFlag: UInt64 = 1 << 63
    fileprivate static let inlineCapacity = 7

    fileprivate static let startBits = 36, countBits = 27
    fileprivate static let longCount = 1 << countBits - 1

    fileprivate init(start: Int, count: Int) {
        bits = UInt64(count) << Self.startBits | UInt64(start)
    }

    fileprivate init(inline utf8: UnsafeBufferPointer<UInt8>) {
        var bits = Self.inlineFlag | UInt64(utf8.count) << 56
        for (index, byte) in utf8.enumerated() { bits |= UInt64(byte) << (8 * index) }
        self.bits = bits
    }

    fileprivate var isInline: Bool { bits & Self.inlineFlag != 0 }
    fileprivate var isLong: Bool { !isInline && count == Self.longCount }
    fileprivate var start: Int { Int(truncatingIfNeeded: bits & (1 << Self.startBits - 1)) }
    fileprivate var count: Int {
        isInline ? Int(truncatingIfNeeded: bits >> 56 & 7) : Int(truncatingIfNeeded: bits >> Self.startBits & (1 << Self.countBits - 1))
    }

    /// No text, in any `RowTexts`.
    static let empty = TextSpan(inline: UnsafeBufferPointer(start: nil, count: 0))
}

/// The strings of a state's rows, their UTF-8 one after another in one byte array. A row's
/// strings are written back byte for byte, so answers and saved states are as they were with
/// `String` fields. The bytes of removed rows stay until they are most of the array
/// (`isMostlyUnused`); then the owner copies the live strings into a fresh one (`copy`).
struct RowTexts {
    private var bytes: [UInt8] = []
    /// Strings too long for a span's count, each in an array of its own (only a seed or state
    /// file can hold one: requests store at most 1 MiB a field).
    private var longTexts: [[UInt8]] = []
    /// Bytes that removed rows' strings hold here.
    private(set) var unused = 0

    init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacityInHugePages(capacity)
    }

    /// Whether removed rows hold more than half of the bytes (and enough of them to be worth a copy).
    var isMostlyUnused: Bool { unused > 1 << 16 && unused * 2 > bytes.count }

    mutating func append(_ text: String) -> TextSpan {
        var text = text
        return text.withUTF8 { append($0) }
    }

    mutating func append(_ utf8: UnsafeBufferPointer<UInt8>) -> TextSpan {
        guard utf8.count > TextSpan.inlineCapacity else { return TextSpan(inline: utf8) }
        guard utf8.count < TextSpan.longCount else {
            longTexts.append(Array(utf8))
            return TextSpan(start: longTexts.count - 1, count: TextSpan.longCount)
        }
        precondition(bytes.count + utf8.count < 1 << TextSpan.startBits, "all of a state's text is under 64 GiB")
        let span = TextSpan(start: bytes.count, count: utf8.count)
        bytes.append(contentsOf: utf8)
        return span
    }

    /// The text of a removed row no longer needs its bytes.
    mutating func release(_ span: TextSpan) {
        if span.isLong {
            longTexts[span.start] = []
        } else if !span.isInline {
            unused += span.count
        }
    }

    /// The same text in a new collection, for a copy of the live rows' strings.
    func copy(_ span: TextSpan, to other: inout RowTexts) -> TextSpan {
        span.isInline ? span : withUTF8(span) { other.append($0) }
    }

    subscript(span: TextSpan) -> String {
        withUTF8(span) { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the span holds exactly the UTF-8 of `text`.
    func equals(_ span: TextSpan, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { theirs in withUTF8(span) { $0.elementsEqual(theirs) } }
    }

    func withUTF8<Result>(_ span: TextSpan, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if span.isLong { return longTexts[span.start].withUnsafeBufferPointer(body) }
        guard span.isInline else {
            return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[span.start..<span.start + span.count])) }
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: TextSpan.inlineCapacity) { buffer in
            for index in 0..<span.count { buffer[index] = UInt8(truncatingIfNeeded: span.bits >> (8 * index)) }
            return body(UnsafeBufferPointer(rebasing: buffer[..<span.count]))
        }
    }
}
