import Foundation
import MockHTTP

/// The few file calls `--state` makes, each reporting the cause of a failure in words a person
/// can act on. Every write is flushed to the disk itself before it counts.
enum DiskFile {
    /// Why a call failed: the call, the path and `errno`, or what a check found.
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var path: String
        var code: Int32
        /// What a check found, in place of `errno`'s meaning.
        var finding: String?

        /// The failed write may have left pages that the disk never took (an I/O error, a file
        /// system gone read-only, a file that is no longer the one at the path): nothing after it
        /// counts as stored until a whole new file is written and flushed. A write refused for
        /// room or size changed nothing past the end that cutting the file back does not undo.
        var needsNewFile: Bool {
            !(call == "write" && [ENOSPC, EDQUOT, EFBIG].contains(code))
        }

        /// The disk, or the user's quota on it, has no room: the start says how much the state needs.
        var isOutOfRoom: Bool { code == ENOSPC || code == EDQUOT }

        var cause: String {
            if let finding { return finding }
            switch code {
            case EACCES, EPERM: return "permission denied"
            case ENOENT: return "no such folder"
            case EROFS: return "read-only file system"
            case ENOSPC: return "no space left on the device"
            case EDQUOT: return "disk quota exceeded"
            case EFBIG: return "file too large"
            case EISDIR: return "it is a folder"
            case ENOTDIR: return "a part of the path is not a folder"
            default: return String(cString: strerror(code))
            }
        }

        var description: String { "\(path): \(cause) (\(call))" }
    }

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

    /// Which file an open descriptor is, to notice the file at the path being deleted or replaced.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    static func identity(of fd: Int32, path: String) throws(Failure) -> Identity {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(call: "fstat", path: path, code: errno) }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// After a flush: the bytes went to the file that is still at `path`, and the file system
    /// still takes changes. A deleted file (or its deleted folder) takes writes that no one will
    /// ever read; a file renamed over it hides them; and ext4 answers `fsync` with success for an
    /// append whose new length never reached its journal when the journal aborted meanwhile (the
    /// moments before `errors=remount-ro` flips the file system), which a journalled change made
    /// after the flush shows (`Durability.confirmJournal`).
    static func confirm(_ fd: Int32, is identity: Identity, at path: String) throws(Failure) {
        let deleted = "the file was deleted (or its folder) while the server ran"
        var named = stat()
        if stat(path, &named) != 0 {
            throw Failure(call: "check", path: path, code: errno, finding: errno == ENOENT || errno == ENOTDIR ? deleted : nil)
        }
        if UInt64(named.st_ino) != identity.inode || UInt64(named.st_dev) != identity.device {
            throw Failure(call: "check", path: path, code: ENOENT, finding: "the file was replaced or moved while the server ran")
        }
        var open = stat()
        guard fstat(fd, &open) == 0 else { throw Failure(call: "fstat", path: path, code: errno) }
        if open.st_nlink == 0 { throw Failure(call: "check", path: path, code: ENOENT, finding: deleted) }
        guard Durability.confirmJournal(fd) else { throw Failure(call: "journal check", path: path, code: errno) }
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
        // A file system that cannot flush a folder (EINVAL) has nothing more to offer.
        var folder = (path as NSString).deletingLastPathComponent
        if folder.isEmpty { folder = "." }
        guard Durability.syncDirectory(folder) || errno == EINVAL else {
            throw Failure(call: "fsync folder", path: folder, code: errno)
        }
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

    /// The folder takes new files (a compaction's), by its permissions: no byte written, so a full
    /// disk does not stop a start that appends to the file.
    static func checkFolderWritable(of path: String) throws(Failure) {
        var folder = (path as NSString).deletingLastPathComponent
        if folder.isEmpty { folder = "." }
        guard access(folder, W_OK | X_OK) == 0 else { throw Failure(call: "access", path: path, code: errno) }
    }

    static func openForAppending(_ path: String) throws(Failure) -> Int32 {
        let fd = Foundation.open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(call: "open", path: path, code: errno) }
        return fd
    }

    /// The whole file, or nil when there is none. Only a regular file is read, opened without
    /// waiting (a FIFO would block the start) and refused above `limit` bytes before any is read.
    static func readAll(_ path: String, limit: Int = .max) throws(Failure) -> [UInt8]? {
        let fd = Foundation.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Failure(call: "open", path: path, code: errno)
        }
        defer { Foundation.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(call: "fstat", path: path, code: errno) }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            let what = kind == S_IFDIR ? "it is a folder" : kind == S_IFIFO ? "it is a named pipe (FIFO), not a file"
                : kind == S_IFCHR || kind == S_IFBLK ? "it is a device, not a file" : "it is not a regular file"
            throw Failure(call: "open", path: path, code: kind == S_IFDIR ? EISDIR : EINVAL, finding: what)
        }
        guard Int(info.st_size) <= limit else {
            throw Failure(call: "open", path: path, code: EFBIG,
                          finding: "it holds \(info.st_size) bytes, more than the memory budget (\(limit) bytes, --memory-budget) that would hold it")
        }
        return try read(fd, from: 0, count: Int(info.st_size), path: path)
    }

    /// `count` bytes from `offset` (fewer at the end of the file).
    static func read(_ fd: Int32, from offset: Int, count: Int, path: String) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if got < 0 {
                if errno == EINTR { continue }
                throw Failure(call: "read", path: path, code: errno)
            }
            if got == 0 { break }
            done += got
        }
        bytes.removeLast(count - done)
        return bytes
    }
}

/// CRC-32 (IEEE, as zlib computes it): PNG chunks carry it, and the state log chains it from record
/// to record so a stale tail can never pass for a new one.
public enum CRC32 {
    @usableFromInline static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    @inlinable
    public static func checksum(_ bytes: some Sequence<UInt8>, continuing previous: UInt32 = 0) -> UInt32 {
        var crc = ~previous
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
