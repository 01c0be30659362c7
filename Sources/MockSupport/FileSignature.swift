#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// What a file looks like from outside, for watching it by polling (`--watch`): a change of any
/// part is a change of the file. The inode catches an editor's save by rename; nanoseconds catch
/// two saves within one second.
public struct FileSignature: Sendable, Equatable {
    public private(set) var inode: UInt64 = 0
    public private(set) var size: Int64 = -1
    public private(set) var modifiedSeconds = 0
    public private(set) var modifiedNanoseconds = 0

    /// A missing file.
    public init() {}

    /// nil when the file cannot be looked at (it does not exist).
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        (modifiedSeconds, modifiedNanoseconds) = (Int(info.st_mtimespec.tv_sec), Int(info.st_mtimespec.tv_nsec))
        #else
        (modifiedSeconds, modifiedNanoseconds) = (Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec))
        #endif
    }
}
