/// The bytes a connection still has to write. Small pieces are packed into one buffer, so a
/// response and its pipelined neighbours go out in one system call; large bodies are queued as
/// they are (arrays share their storage), so a cached answer of a megabyte is never copied.
struct OutputQueue {
    private var chunks: [[UInt8]] = []
    /// The first chunk not yet fully written, and how much of it is.
    private var first = 0
    private var offset = 0
    /// True when the last chunk is one of our packing buffers, safe to append to.
    private var lastIsPacked = false
    private(set) var count = 0

    static let packLimit = 16 * 1024

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        count += bytes.count
        if bytes.count >= Self.packLimit {
            chunks.append(bytes)
            lastIsPacked = false
        } else if lastIsPacked && chunks[chunks.count - 1].count + bytes.count <= 4 * Self.packLimit {
            chunks[chunks.count - 1].append(contentsOf: bytes)
        } else {
            var packed = bytes
            packed.reserveCapacity(Self.packLimit)
            chunks.append(packed)
            lastIsPacked = true
        }
    }

    enum WriteResult {
        case drained
        case wouldBlock
        case failed
    }

    /// Writes as much as the socket takes.
    mutating func write(to fd: Int32) -> WriteResult {
        while first < chunks.count {
            let written = chunks[first].withUnsafeBytes { raw in
                Sys.transmit(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))
            }
            if written < 0 { return written == -1 ? .wouldBlock : .failed }
            offset += written
            count -= written
            if offset == chunks[first].count {
                first += 1
                offset = 0
            }
        }
        chunks.removeAll(keepingCapacity: true)
        first = 0
        lastIsPacked = false
        return .drained
    }
}
