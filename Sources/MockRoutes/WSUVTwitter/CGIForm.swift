import MockHTTP
import MockSupport

/// Query strings and form bodies as CGI.pm 4.55 split and unescaped them (`parse_params` and
/// `CGI::Util::unescape`), which differs from the forms of the other APIs: `;` separates pairs like
/// `&`, and `%uXXXX` escapes are decoded.
enum CGIForm {
    /// The decoded value of the first pair whose decoded name is `name` (CGI.pm's scalar `param`),
    /// nil when none has it. Empty pieces are skipped; a piece splits at its first `=` (none: the
    /// value is empty). Each lookup reads the form again instead of keeping its pairs: a form may
    /// hold millions of them (CGI.pm had no cap), and a script asks for a handful.
    static func firstValue(named name: [UInt8], in form: [UInt8]) -> [UInt8]? {
        var decodedName: [UInt8] = []
        let pieces = FormPieces(form[...], separatedBy: UInt8(ascii: "&"), or: UInt8(ascii: ";"))
        // Unescaping never lengthens a name, so a shorter piece cannot match.
        for piece in pieces where piece.name.count >= name.count {
            decodedName.removeAll(keepingCapacity: true)
            unescape(form[piece.name], into: &decodedName)
            if decodedName == name {
                var value: [UInt8] = []
                unescape(form[piece.value], into: &value)
                return value
            }
        }
        return nil
    }

    /// `+` is a space; `%uD83D%uDE00` (a surrogate pair), `%XX` and `%uXXXX` are decoded, in that
    /// order of preference, to UTF-8 bytes; anything else after a `%` stays as written.
    private static func unescape(_ bytes: ArraySlice<UInt8>, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
                i += 1
            } else if byte != UInt8(ascii: "%") {
                out.append(byte)
                i += 1
            } else if let high = unicodeEscape(bytes, at: i), (0xD800...0xDBFF).contains(high),
                      let low = unicodeEscape(bytes, at: i + 6), (0xDC00...0xDFFF).contains(low) {
                appendUTF8(0x10000 + (high - 0xD800) << 10 + (low - 0xDC00), to: &out)
                i += 12
            } else if let value = hexValue(bytes, from: i + 1, count: 2) {
                out.append(UInt8(value))
                i += 3
            } else if let value = unicodeEscape(bytes, at: i) {
                appendUTF8(value, to: &out)
                i += 6
            } else {
                out.append(byte)
                i += 1
            }
        }
    }

    /// The value of `%uXXXX` starting at `index`.
    private static func unicodeEscape(_ bytes: ArraySlice<UInt8>, at index: Int) -> UInt32? {
        guard index + 6 <= bytes.endIndex, bytes[index] == UInt8(ascii: "%"), bytes[index + 1] == UInt8(ascii: "u")
        else { return nil }
        return hexValue(bytes, from: index + 2, count: 4)
    }

    private static func hexValue(_ bytes: ArraySlice<UInt8>, from start: Int, count: Int) -> UInt32? {
        guard start + count <= bytes.endIndex else { return nil }
        var value: UInt32 = 0
        for byte in bytes[start..<(start + count)] {
            guard let digit = hexDigitValue(byte) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Perl's `utf8::encode(chr $n)`: a lone surrogate becomes the three bytes of its number, which
    /// are not UTF-8 and so read as U+FFFD later, like any invalid sequence.
    private static func appendUTF8(_ value: UInt32, to out: inout [UInt8]) {
        guard let scalar = Unicode.Scalar(value) else {
            // Typed steps, a byte per statement: as one expression, Swift 6.0 took up to 342 ms.
            let lead: UInt32 = 0xE0 | value >> 12, middle: UInt32 = value >> 6 & 0x3F, last: UInt32 = value & 0x3F
            out.append(UInt8(lead))
            out.append(UInt8(0x80 | middle))
            out.append(UInt8(0x80 | last))
            return
        }
        UTF8.encode(scalar) { out.append($0) }
    }
}
