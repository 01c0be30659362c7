#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A whole file mapped read-only, unmapped when the last reference goes: its pages are the page
/// cache's own, where reading the file would zero fresh memory and copy the text into it.
///
/// Only for a file nobody changes while it is mapped: one that another program truncates ends
/// this process (SIGBUS) when the lost pages are read. Seeds are mapped at start-up only, for the
/// few milliseconds an API reads its file; `--watch` and resets read files in full.
public final class MappedFile: @unchecked Sendable {
    /// The file's bytes; valid as long as this object is.
    public let bytes: UnsafeBufferPointer<UInt8>

    /// nil when the file cannot be mapped (it is missing, empty, or not a regular file).
    public init?(path: String) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { return nil }
        let size = Int(info.st_size)
        #if canImport(Darwin)
        let flags = MAP_PRIVATE
        #else
        let flags = MAP_PRIVATE | MAP_POPULATE  // every page mapped in this one call, not one fault each
        #endif
        guard let address = mmap(nil, size, PROT_READ, flags, fd, 0), address != MAP_FAILED else { return nil }
        bytes = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: size)
    }

    deinit {
        _ = munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }
}
