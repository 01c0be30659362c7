/// Elements kept sorted, for "every row whose key is above X" in O(log n + k) for k answers.
///
/// The elements sit in chunks of at most `chunkCapacity`, each sorted, the chunks in order. Finding
/// a place is a binary search over the chunks' last elements and then within one chunk; inserting
/// or removing moves at most one chunk's elements (and, when a chunk splits or empties, the list of
/// chunks), so an insert or a remove costs the same with 10 elements or 100,000.
public struct SortedIndex<Element: Comparable> {
    static var chunkCapacity: Int { 512 }

    private var chunks: [[Element]] = []

    public init() {}

    /// An index of `elements`, which must already be sorted; chunks start half full.
    public init(sorted elements: [Element]) {
        let size = Self.chunkCapacity / 2
        chunks = stride(from: 0, to: elements.count, by: size).map { Array(elements[$0..<min($0 + size, elements.count)]) }
    }

    public mutating func insert(_ element: Element) {
        guard !chunks.isEmpty else {
            chunks = [[element]]
            return
        }
        // The first chunk whose last element is not below it, or the last chunk (the usual case:
        // a new row's key is the highest so far).
        let chunk = min(firstChunk { !($0 < element) }, chunks.count - 1)
        let position = Self.partitionPoint(chunks[chunk]) { !($0 < element) }
        chunks[chunk].insert(element, at: position)
        if chunks[chunk].count > Self.chunkCapacity {
            let upper = Array(chunks[chunk][(Self.chunkCapacity / 2)...])
            chunks[chunk].removeLast(upper.count)
            chunks.insert(upper, at: chunk + 1)
        }
    }

    /// Removes one element equal to `element`; false when there is none.
    @discardableResult
    public mutating func remove(_ element: Element) -> Bool {
        let chunk = firstChunk { !($0 < element) }
        guard chunk < chunks.count else { return false }
        let position = Self.partitionPoint(chunks[chunk]) { !($0 < element) }
        guard position < chunks[chunk].count, chunks[chunk][position] == element else { return false }
        chunks[chunk].remove(at: position)
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
        return true
    }

    /// The elements from the first one for which `isPast` holds, in order. `isPast` must be false
    /// for a prefix of the sorted elements and true for the rest.
    public func elements(from isPast: (Element) -> Bool) -> some Sequence<Element> {
        let chunk = firstChunk(where: isPast)
        let position = chunk < chunks.count ? Self.partitionPoint(chunks[chunk], isPast) : 0
        return chunks[chunk...].enumerated().lazy.flatMap { offset, elements in
            offset == 0 ? elements[position...] : elements[...]
        }
    }

    /// The first chunk whose last element satisfies `isPast`, or `chunks.count`.
    private func firstChunk(where isPast: (Element) -> Bool) -> Int {
        Self.partitionPoint(chunks) { isPast($0[$0.count - 1]) }
    }

    /// The index of the first item for which `isPast` holds (false for a prefix, true after), by bisection.
    private static func partitionPoint<Item>(_ items: [Item], _ isPast: (Item) -> Bool) -> Int {
        var low = 0, high = items.count
        while low < high {
            let middle = (low + high) / 2
            if isPast(items[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
