import Foundation
import MockSupport

/// A client that opened a connection with a TLS handshake: it speaks https to this http port.
public struct TLSAttempt: Sendable {
    public var peer: PeerAddress
    public var at: Date
    /// The host name the client asked for (the ClientHello's server_name), when it sent one.
    public var serverName: String?
    /// The port the client connected to.
    public var port: Int
}

/// Recognises the first bytes of a TLS ClientHello, so an https client gets a closed connection
/// at once (instead of waiting for a header timeout) and the console says what happened.
enum TLSClientHello {
    /// A handshake record (22) of TLS 1.x / SSL 3 (`16 03 0x`): no HTTP method starts with byte 22.
    static func starts(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 3 && bytes[0] == 0x16 && bytes[1] == 0x03 && bytes[2] <= 0x04
    }

    /// The server_name extension's host name, if the first record holds the whole ClientHello.
    static func serverName(_ bytes: UnsafeRawBufferPointer) -> String? {
        var reader = ByteReader(bytes: bytes)
        // Record header (5), handshake type and length (4), version (2), random (32).
        guard reader.skip(5), reader.byte() == 1, reader.skip(3 + 2 + 32),
              let sessionID = reader.byte(), reader.skip(Int(sessionID)),
              let suites = reader.uint16(), reader.skip(suites),
              let compressions = reader.byte(), reader.skip(Int(compressions)),
              let extensionsLength = reader.uint16() else { return nil }
        let end = reader.offset + extensionsLength
        while reader.offset + 4 <= end {
            guard let type = reader.uint16(), let length = reader.uint16() else { return nil }
            guard type == 0 else {
                guard reader.skip(length) else { return nil }
                continue
            }
            // server_name: list length (2), name type (1, 0 = host name), name length (2), name.
            guard reader.skip(2), reader.byte() == 0, let nameLength = reader.uint16(), reader.skip(nameLength) else { return nil }
            return String(validUTF8: bytes[(reader.offset - nameLength)..<reader.offset])
        }
        return nil
    }

    private struct ByteReader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func skip(_ count: Int) -> Bool {
            guard offset + count <= bytes.count else { return false }
            offset += count
            return true
        }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint16() -> Int? {
            guard let high = byte(), let low = byte() else { return nil }
            return Int(high) << 8 | Int(low)
        }
    }
}
