import MockKit

/// Checks that bytes are a whole PNG or JPEG file, as docs/apis/internproducts.md#seed-reset-and-state describes them. Clients
/// force-unwrap the decoded picture, so a truncated or foreign file must never reach them.
enum InternProductsPicture {
    /// nil when the bytes are a complete PNG or JPEG; otherwise what is wrong.
    static func problem(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: pngSignature) { return pngProblem(bytes) }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return jpegProblem(bytes) }
        return "not a PNG or JPEG file"
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Signature, `IHDR` first with a non-zero size, at least one `IDAT`, valid CRCs, and an empty
    /// `IEND` as the very last bytes.
    private static func pngProblem(_ bytes: [UInt8]) -> String? {
        var position = pngSignature.count
        var sawData = false
        while position + 12 <= bytes.count {
            let length = bigEndian(bytes, at: position, count: 4)
            let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
            guard length <= bytes.count - position - 12 else { return "PNG chunk \(type) runs past the end" }
            let dataStart = position + 8
            let crcStart = dataStart + length
            let checksum = UInt32(bigEndian(bytes, at: crcStart, count: 4))
            guard CRC32.checksum(bytes[(position + 4)..<crcStart]) == checksum else {
                return "PNG chunk \(type) has a bad CRC"
            }
            if position == pngSignature.count {
                guard type == "IHDR", length == 13,
                      bigEndian(bytes, at: dataStart, count: 4) > 0, bigEndian(bytes, at: dataStart + 4, count: 4) > 0 else {
                    return "PNG must start with a 13-byte IHDR of a non-empty picture"
                }
            }
            if type == "IDAT" { sawData = true }
            if type == "IEND" {
                guard length == 0, crcStart + 4 == bytes.count else { return "PNG must end with an empty IEND" }
                return sawData ? nil : "PNG has no IDAT chunk"
            }
            position = crcStart + 4
        }
        return "PNG is truncated (no IEND)"
    }

    /// `FF D8`, segments with `DQT` and a `SOFn` frame before `SOS`, and `FF D9` at the end.
    private static func jpegProblem(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 4, bytes[bytes.count - 2] == 0xFF, bytes[bytes.count - 1] == 0xD9 else {
            return "JPEG must end with FF D9"
        }
        var position = 2
        var sawTables = false, sawFrame = false
        while position + 4 <= bytes.count {
            guard bytes[position] == 0xFF else { return "JPEG segment expected at byte \(position)" }
            let marker = bytes[position + 1]
            switch marker {
            case 0xFF:
                position += 1 // fill byte
                continue
            case 0xDA:
                return sawTables && sawFrame ? nil : "JPEG needs DQT and a SOFn frame before SOS"
            case 0x01, 0xD0...0xD9:
                return "JPEG has a stray marker before SOS"
            case 0xDB:
                sawTables = true
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                sawFrame = true
            default:
                break
            }
            let length = bigEndian(bytes, at: position + 2, count: 2)
            guard length >= 2, position + 2 + length <= bytes.count else { return "JPEG segment runs past the end" }
            position += 2 + length
        }
        return "JPEG has no SOS segment"
    }

    private static func bigEndian(_ bytes: [UInt8], at position: Int, count: Int) -> Int {
        bytes[position..<(position + count)].reduce(0) { $0 << 8 | Int($1) }
    }
}
