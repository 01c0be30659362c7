/// A string that equals and hashes by its UTF-8 bytes, as the real servers (PHP, Perl, Node)
/// compared names, passwords and tokens. Swift's own `String ==` and hashing follow canonical
/// equivalence, under which `é` (U+00E9) and `e` + U+0301, or `K` and the Kelvin sign, are one key.
public struct ExactText: Hashable, CustomStringConvertible {
    public let string: String

    public init(_ string: String) {
        self.string = string
    }

    public var description: String { string }

    public static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        lhs.string.hasSameBytes(as: rhs.string)
    }

    public func hash(into hasher: inout Hasher) {
        // Native strings hand out their bytes in place; others (bridged ones) are copied first.
        if string.utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            Array(string.utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}

extension String {
    /// Byte-for-byte equality of the UTF-8 forms, for credentials and names.
    public func hasSameBytes(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in mine.elementsEqual(theirs) }
        }
        return compared.flatMap { $0 } ?? utf8.elementsEqual(other.utf8)
    }
}

extension String {
    /// `lowercased()`, without making a new string when that would change nothing: plain ASCII
    /// without capitals, as nearly every email is (an index folds every seeded row's email).
    public func lowercasedIfNeeded() -> String {
        utf8.contains { $0 >= 0x80 || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) } ? lowercased() : self
    }
}
