#if os(Linux)
import Glibc
#endif

extension Array {
    /// Asks Linux to back the 2 MiB-aligned part of the room reserved for the elements with huge
    /// pages: memory is touched for the first time one page at a time, each a fault costing about
    /// a microsecond, and 100,000 rows fill thousands of 4 KiB pages where they fill a few huge
    /// ones (whose entries also spare the lookups by name some address translation). Elsewhere,
    /// or with no huge pages to be had, nothing changes.
    mutating func adviseHugePages() {
        #if os(Linux)
        let room = capacity * MemoryLayout<Element>.stride
        withUnsafeMutableBufferPointer { elements in
            guard let base = elements.baseAddress.map(UnsafeMutableRawPointer.init) else { return }
            let hugePage = 2 << 20
            let start = (Int(bitPattern: base) + hugePage - 1) & -hugePage
            let end = (Int(bitPattern: base) + room) & -hugePage
            if end > start { _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_HUGEPAGE) }
        }
        #endif
    }
}
