import MockKit

/// Every tweet's text, one after another in one byte buffer, each after its length (LEB128: one
/// byte below 128): no string allocated and kept for each of 100,000 tweets, and a text is
/// written back as the very bytes it came as. Texts are only ever added; a deleted tweet points at
/// the one `[deleted]` kept first, so deleting stores nothing.
struct TweetTexts {
    /// Where a text is: the offset of its length.
    struct Place: Equatable {
        fileprivate let offset: Int
    }

    /// The text of every deleted tweet.
    static let deleted = Place(offset: 0)

    private var bytes: [UInt8] = []

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
        bytes.withUnsafeBufferPointer { buffer in
            var offset = place.offset, length = 0, shift = 0
            while true {
                let byte = buffer[offset]
                offset += 1
                length |= Int(byte & 0x7F) << shift
                guard byte >= 0x80 else { break }
                shift += 7
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[offset..<offset + length]), as: UTF8.self)
        }
    }
}
