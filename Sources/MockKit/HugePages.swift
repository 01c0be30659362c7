#if os(Linux)
import Glibc
#endif

/// Asks Linux to back the 2 MiB-aligned part of a large, still untouched buffer with huge pages
/// (transparent huge pages in `madvise` mode, as on the machine start-up is measured on). Fresh
/// memory costs a page fault per page first touched, about a microsecond each on that VM: a large
/// seed's file and rows fill tens of thousands of 4 KiB pages but only a few dozen 2 MiB ones (the
/// large seed file alone is some 30,000 faults, about 40 ms of CPU). The price is at most one
/// partly filled 2 MiB page per buffer of extra RSS. Elsewhere, or with no huge pages to be had,
/// the memory is the same, in small pages.
public enum HugePages {
    static let size = 2 << 20

    public static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
        #if os(Linux)
        guard let base = buffer.baseAddress.map({ Int(bitPattern: $0) }) else { return }
        let start = (base + size - 1) & ~(size - 1), end = (base + buffer.count) & ~(size - 1)
        // Only a hint: where it is refused, the buffer fills as before.
        if end > start { _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_HUGEPAGE) }
        #endif
    }
}

extension Array {
    /// `reserveCapacity`, then the whole room reserved advised for huge pages (`HugePages`).
    public mutating func reserveCapacityInHugePages(_ capacity: Int) {
        reserveCapacity(capacity)
        let bytes = self.capacity * MemoryLayout<Element>.stride
        guard bytes >= HugePages.size else { return }
        withUnsafeMutableBufferPointer { elements in
            HugePages.advise(UnsafeMutableRawBufferPointer(start: elements.baseAddress, count: bytes))
        }
    }
}
