import Foundation
import MockHTTP

/// The few file calls `--state` makes, each reporting the cause of a failure in words a person
/// can act on. Every write is flushed to the disk itself before it counts.
enum DiskFile {
    /// Why a call failed: the call, the path and `errno`.
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var path: String
        var code: Int32

        var cause: String {
            switch code {
            case EACCES, EPERM: return "permission denied"
            case ENOENT: return "no such folder"
            case EROFS: return "read-only file system"
            case ENOSPC: return "no space left on the device"
            case EDQUOT: return "disk quota exceeded"
            case EFBIG: return "file too large"
            case EISDIR: return "it is a folder"
            default: return String(cString: strerror(code))
            }
        }

        var description: String { "\(path): \(cause) (\(call))" }
    }

    /// Writes all of `bytes` at `offset`.
    static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws(Failure) {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(call: "write", path: path, code: errno)
            }
            done += count
        }
    }

    /// The data on the disk itself (`F_FULLFSYNC` on macOS, where `fsync` stops at the drive's cache).
    static func sync(_ fd: Int32, path: String) throws(Failure) {
        guard Durability.sync(fd) else { throw Failure(call: "fsync", path: path, code: errno) }
    }

    static func truncate(_ fd: Int32, to length: Int, path: String) throws(Failure) {
        guard ftruncate(fd, off_t(length)) == 0 else { throw Failure(call: "ftruncate", path: path, code: errno) }
    }

    /// A new file in one step: written beside the old one, flushed, renamed over it, and the
    /// folder flushed so the rename itself survives a power cut. Returns the new file, open.
    static func replace(_ path: String, with bytes: [UInt8]) throws(Failure) -> Int32 {
        let (fd, temporary) = try writeBeside(path, bytes)
        guard rename(temporary, path) == 0 else {
            let failure = Failure(call: "rename", path: path, code: errno)
            Foundation.close(fd)
            unlink(temporary)
            throw failure
        }
        try syncFolder(of: path)
        return fd
    }

    /// Shows that the folder takes a new file and the disk a block, without touching the file
    /// itself: one byte written and flushed beside it, then removed.
    static func probe(beside path: String) throws(Failure) {
        let (fd, temporary) = try writeBeside(path, [10])
        Foundation.close(fd)
        unlink(temporary)
    }

    /// `bytes` in a new file beside `path`, on the disk; failures name `path`, the file the
    /// person chose, not the temporary one.
    private static func writeBeside(_ path: String, _ bytes: [UInt8]) throws(Failure) -> (fd: Int32, temporary: String) {
        let temporary = path + ".partial"
        let fd = Foundation.open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(call: "create", path: path, code: errno) }
        do throws(Failure) {
            try write(fd, bytes, at: 0, path: path)
            try sync(fd, path: path)
        } catch {
            Foundation.close(fd)
            unlink(temporary)
            throw error
        }
        return (fd, temporary)
    }

    static func openForAppending(_ path: String) throws(Failure) -> Int32 {
        let fd = Foundation.open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(call: "open", path: path, code: errno) }
        return fd
    }

    /// The folder's entries on the disk, so a rename survives a power cut; a file system that
    /// cannot flush a folder (EINVAL) has nothing more to offer.
    static func syncFolder(of path: String) throws(Failure) {
        var folder = (path as NSString).deletingLastPathComponent
        if folder.isEmpty { folder = "." }
        guard Durability.syncDirectory(folder) || errno == EINVAL else {
            throw Failure(call: "fsync folder", path: folder, code: errno)
        }
    }

    static func readAll(_ path: String) throws(Failure) -> [UInt8]? {
        let fd = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Failure(call: "open", path: path, code: errno)
        }
        defer { Foundation.close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(call: "read", path: path, code: errno)
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }
}

/// CRC-32 (IEEE), chained from record to record so a stale tail can never pass for a new one.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: some Sequence<UInt8>, continuing previous: UInt32 = 0) -> UInt32 {
        var crc = ~previous
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
