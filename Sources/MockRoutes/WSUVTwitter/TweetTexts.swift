import MockKit

/// Every tweet's text, one after another in one byte buffer, each after its length (LEB128: one
/// byte below 128): no string allocated and kept for each of 100,000 tweets, and a text is
/// written back as the very bytes it came as. A deleted tweet points at the one `[deleted]` kept
/// first; the text it had stays until deleted texts are most of the buffer (`isMostlyUnused`), and
/// then the owner copies the live texts into a fresh one (`copy`), so adding and deleting long
/// tweets cannot grow the server without bound.
struct TweetTexts {
    /// Where a text is: the offset of its length.
    struct Place: Equatable {
        fileprivate let offset: Int
    }

    /// The text of every deleted tweet.
    static let deleted = Place(offset: 0)

    private var bytes: [UInt8] = []
    /// Bytes that the texts of deleted tweets hold here.
    private var unused = 0

    /// Room for `capacity` bytes of texts and their lengths: address space, not memory, until
    /// texts fill it.
    init(capacity: Int = 0) {
        bytes.reserveCapacityInHugePages(capacity + WSUVState.deletedText.utf8.count + 1)
        _ = append(WSUVState.deletedText)
    }

    mutating func append(_ text: String) -> Place {
        var text = text
        return text.withUTF8 { append($0) }
    }

    /// Stores the UTF-8 of a text.
    mutating func append(_ utf8: UnsafeBufferPointer<UInt8>) -> Place {
        let place = Place(offset: bytes.count)
        var length = utf8.count
        while length >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: length) | 0x80)
            length >>= 7
        }
        bytes.append(UInt8(length))
        bytes.append(contentsOf: utf8)
        return place
    }

    subscript(place: Place) -> String {
        String(decoding: bytes[range(of: place)], as: UTF8.self)
    }

    /// Whether deleted texts hold more than half of the bytes (and enough of them to be worth a copy).
    var isMostlyUnused: Bool { unused > 1 << 16 && unused * 2 > bytes.count }

    /// The text at `place` is no longer any tweet's.
    mutating func release(_ place: Place) {
        if place != Self.deleted { unused += range(of: place).upperBound - place.offset }
    }

    /// The same text in a new collection, for a copy of the live tweets' texts.
    func copy(_ place: Place, to other: inout TweetTexts) -> Place {
        guard place != Self.deleted else { return place }
        return bytes.withUnsafeBufferPointer { other.append(UnsafeBufferPointer(rebasing: $0[range(of: place)])) }
    }

    /// Where the text at `place` lies, after its length.
    private func range(of place: Place) -> Range<Int> {
        var offset = place.offset, length = 0, shift = 0
        while true {
            let byte = bytes[offset]
            offset += 1
            length |= Int(byte & 0x7F) << shift
            guard byte >= 0x80 else { break }
            shift += 7
        }
        return offset..<offset + length
    }
}
