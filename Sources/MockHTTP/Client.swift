import MockSupport

public struct ClientResponse: Sendable {
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public var text: String { String(decoding: body, as: UTF8.self) }
}

public enum ClientError: Error, Equatable {
    /// The server closed the connection before a whole response arrived.
    case closed
    case malformed(String)
}

/// A small blocking HTTP/1.1 client over one socket: sends raw bytes, reads framed responses.
/// `--healthcheck` uses it, and so do the tests, which need to send malformed requests on purpose.
public final class BlockingClient {
    // Internal, not private: the tests' own reads (Tests/TestSupport/ClientStreamEnd.swift) use them.
    let fd: Int32
    var buffer: [UInt8] = []
    var closed = false
    /// The last read failed with ECONNRESET.
    var wasReset = false

    public init(host: String = "127.0.0.1", port: Int, timeout: Double = 10) throws(SocketError) {
        fd = try Sys.dial(host: host, port: port, timeout: timeout)
    }

    deinit { Sys.close(fd) }

    /// Sends every byte (unless the peer has gone; then the next read says so).
    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Sys.transmit(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            guard written > 0 else { return }
            offset += written
        }
    }

    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Reads one response, framed by Content-Length, chunked encoding, or the end of the stream.
    /// `head: true` reads a response to HEAD (no body whatever the headers say).
    public func readResponse(head: Bool = false) throws(ClientError) -> ClientResponse {
        let headEnd = try readUntil([13, 10, 13, 10])
        let headText = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeSubrange(0..<(headEnd + 4))
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw .malformed("status line") }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("header line") }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let reason = statusLine.count > 2 ? String(statusLine[2]) : ""
        if status < 200 || status == 204 || status == 304 || head {
            return ClientResponse(status: status, reason: reason, headers: headers, body: [])
        }
        var body: [UInt8] = []
        if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            try fill(length)
            body = Array(buffer[0..<length])
            buffer.removeSubrange(0..<length)
        } else if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
            while true {
                let lineEnd = try readUntil([13, 10])
                let size = Int(String(decoding: buffer[0..<lineEnd], as: UTF8.self).prefix { $0 != ";" }, radix: 16) ?? 0
                buffer.removeSubrange(0..<(lineEnd + 2))
                if size == 0 {
                    _ = try readUntil([13, 10])
                    buffer.removeSubrange(0..<2)
                    break
                }
                try fill(size + 2)
                body += buffer[0..<size]
                buffer.removeSubrange(0..<(size + 2))
            }
        } else {
            body = readToEnd()
        }
        return ClientResponse(status: status, reason: reason, headers: headers, body: body)
    }

    /// Everything until the server closes (or the timeout passes).
    public func readToEnd() -> [UInt8] {
        while receive() > 0 {}
        defer { buffer.removeAll() }
        return buffer
    }

    private func readUntil(_ marker: [UInt8]) throws(ClientError) -> Int {
        let search = ByteSearch(marker)
        while true {
            if let found = search.firstRange(in: buffer) { return found.lowerBound }
            guard receive() > 0 else { throw .closed }
        }
    }

    private func fill(_ count: Int) throws(ClientError) {
        while buffer.count < count {
            guard receive() > 0 else { throw .closed }
        }
    }

    /// One read into the buffer: the count, 0 at end of stream, -1 on timeout, -2 on error.
    func receive() -> Int {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { Sys.receive(fd, into: $0) }
        wasReset = count == -2 && Sys.lastCallWasReset
        if count > 0 { buffer += chunk[0..<count] }
        if count == 0 || count == -2 { closed = true }
        return count
    }
}
