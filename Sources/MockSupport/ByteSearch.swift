/// Finds a byte string in bytes in time linear in both (Knuth–Morris–Pratt). The standard library's
/// `firstRange(of:)` compares the pattern at every offset: with a pattern and a body a client
/// chooses (a multipart boundary of 69 dashes and an `x`, a body of dashes) that is 70 comparisons
/// per byte, a minute of one event loop for 16 MiB.
public struct ByteSearch: Sendable {
    public let pattern: [UInt8]
    /// `borders[k]`: the length of the longest proper prefix of `pattern[..<k]` that is also its suffix,
    /// where a partial match of length k goes on after a mismatch.
    private let borders: [Int]

    public init(_ pattern: [UInt8]) {
        self.pattern = pattern
        var borders = [Int](repeating: 0, count: pattern.count + 1)
        var border = 0
        for index in pattern.indices.dropFirst() {
            while border > 0 && pattern[index] != pattern[border] { border = borders[border] }
            if pattern[index] == pattern[border] { border += 1 }
            borders[index + 1] = border
        }
        self.borders = borders
    }

    public init(_ pattern: String) {
        self.init(Array(pattern.utf8))
    }

    /// The first place `pattern` occurs in `bytes`.
    public func firstRange<Bytes: Collection<UInt8>>(in bytes: Bytes) -> Range<Bytes.Index>? {
        // The search runs on the bytes' own storage (arrays and their slices), so the loop is
        // compiled once, for a buffer, instead of through the collection's witnesses.
        let found = bytes.withContiguousStorageIfAvailable(firstOffsets) ?? Array(bytes).withUnsafeBufferPointer(firstOffsets)
        guard let found else { return nil }
        let start = bytes.index(bytes.startIndex, offsetBy: found.lowerBound)
        return start..<bytes.index(start, offsetBy: found.count)
    }

    private func firstOffsets(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard !pattern.isEmpty else { return 0..<0 }
        var matched = 0
        for (index, byte) in bytes.enumerated() {
            while matched > 0 && pattern[matched] != byte { matched = borders[matched] }
            if pattern[matched] == byte { matched += 1 }
            if matched == pattern.count { return (index + 1 - matched)..<(index + 1) }
        }
        return nil
    }

    public func occurs<Bytes: Collection<UInt8>>(in bytes: Bytes) -> Bool {
        firstRange(in: bytes) != nil
    }
}
