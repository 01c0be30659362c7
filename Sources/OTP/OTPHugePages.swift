#if os(Linux)
import Glibc
#endif

extension Array {
    /// Room for `capacity` elements, backed by huge pages where Linux has them: a large seed's rows
    /// fill megabytes of fresh memory, which in 4 KiB pages costs a page fault for every page
    /// touched. The memory is the same elsewhere, in small pages.
    mutating func reserveHugeCapacity(_ capacity: Int) {
        reserveCapacity(capacity)
        #if os(Linux)
        let hugePage = 2 << 20, bytes = self.capacity * MemoryLayout<Element>.stride
        guard bytes >= hugePage else { return }
        withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress.map({ Int(bitPattern: $0) }) else { return }
            // Only whole huge pages inside the buffer.
            let start = (base + hugePage - 1) & ~(hugePage - 1), end = (base + bytes) & ~(hugePage - 1)
            if end > start { _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_HUGEPAGE) }
        }
        #endif
    }
}
