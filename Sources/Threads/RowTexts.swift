/// Where one string of a row is in `RowTexts`: 8 bytes in the row instead of a 16-byte `String`,
/// which past 15 UTF-8 bytes (most emails and messages) is a heap allocation of its own besides.
struct TextSpan: Equatable {
    fileprivate let start: UInt32
    fileprivate let count: UInt32

    /// No text, in any `RowTexts`.
    static let empty = TextSpan(start: 0, count: 0)
}

/// The strings of a state's rows, their UTF-8 one after another in one byte array. A row's
/// strings are written back byte for byte, so answers and saved states are as they were with
/// `String` fields. The bytes of removed rows stay until they are most of the array; then the
/// owner copies the live strings into a fresh one (`compacted`).
struct RowTexts {
    private var bytes: [UInt8] = []
    /// Bytes that removed rows' strings hold.
    private(set) var unused = 0

    init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Whether removed rows hold more than half of the bytes (and enough of them to be worth a copy).
    var isMostlyUnused: Bool { unused > 1 << 16 && unused * 2 > bytes.count }

    mutating func append(_ text: String) -> TextSpan {
        var text = text
        return text.withUTF8 { append($0) }
    }

    mutating func append(_ utf8: UnsafeBufferPointer<UInt8>) -> TextSpan {
        precondition(bytes.count + utf8.count <= UInt32.max, "a threads state holds at most 4 GiB of text")
        let span = TextSpan(start: UInt32(bytes.count), count: UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
        return span
    }

    /// The text of a removed row no longer needs its bytes.
    mutating func release(_ span: TextSpan) {
        unused += Int(span.count)
    }

    /// The same text in a new collection, for a copy of the live rows' strings.
    func copy(_ span: TextSpan, to other: inout RowTexts) -> TextSpan {
        withUTF8(span) { other.append($0) }
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
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(span.start)..<Int(span.start) + Int(span.count)])) }
    }
}
