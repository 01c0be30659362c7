#if os(Linux)
import Glibc
#endif

/// Asks Linux to back a large, still untouched buffer with 2 MiB pages where the system allows it
/// (transparent huge pages in `madvise` mode, as on the machine the start-up is measured on).
/// Filling the rows of a large seed then takes a few dozen page faults instead of thousands, and
/// each 4 KiB fault costs about a microsecond on this VM: the large threads seed loads in about 60
/// ms of CPU instead of 85, for up to one partly used 2 MiB page per buffer more RSS. Elsewhere,
/// and for buffers under `minimumByteCount`, nothing happens.
enum HugePages {
    static let minimumByteCount = 4 << 20

    static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
        #if os(Linux)
        guard buffer.count >= minimumByteCount, let base = buffer.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let first = (Int(bitPattern: base) + page - 1) & ~(page - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(page - 1)
        // Only a hint: where huge pages are off or unavailable, the buffer fills as before.
        _ = madvise(UnsafeMutableRawPointer(bitPattern: first), end - first, MADV_HUGEPAGE)
        #endif
    }
}

extension Array {
    /// `reserveCapacity`, then the room advised for huge pages (`HugePages`).
    mutating func reserveCapacityInHugePages(_ capacity: Int) {
        reserveCapacity(capacity)
        let bytes = self.capacity * MemoryLayout<Element>.stride
        guard bytes >= HugePages.minimumByteCount else { return }
        withUnsafeMutableBufferPointer { buffer in
            HugePages.advise(UnsafeMutableRawBufferPointer(start: buffer.baseAddress, count: bytes))
        }
    }
}
