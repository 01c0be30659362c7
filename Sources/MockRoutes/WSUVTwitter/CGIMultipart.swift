import MockHTTP
import MockSupport

/// A `multipart/form-data` POST body as CGI.pm 4.55's `read_multipart` read it. It differs from the
/// multipart reading of the other APIs: without `boundary=` the body's first line is the delimiter,
/// the delimiter is found anywhere in the body, a value loses the two bytes before the next one, a
/// file part's value is its file name, and a body whose delimiters never end made the script die
/// (a 500).
enum CGIMultipart {
    /// The first `boundary=` anywhere in the header (case-sensitive), optionally quoted, up to a
    /// `"`, `;` or `,`: CGI.pm's `/boundary=\"?([^\";,]+)\"?/`.
    static func boundary(in contentType: String) -> [UInt8]? {
        let bytes = Array(contentType.utf8)
        let key = Array("boundary=".utf8)
        let stops = Array("\";,".utf8)
        var searchFrom = 0
        while let found = bytes[searchFrom...].firstRange(of: key) {
            var start = found.upperBound
            if start < bytes.count, bytes[start] == UInt8(ascii: "\"") { start += 1 }
            let value = bytes[start...].prefix { !stops.contains($0) }
            if !value.isEmpty { return Array(value) }
            searchFrom = found.lowerBound + 1
        }
        return nil
    }

    /// Hands each parameter's name and value to `add` in order, as slices of `body` or of the
    /// part's header, so a body of many tiny parts keeps nothing per part; false where CGI.pm
    /// died. A part without headers ends the reading (CGI.pm's "malformed multipart" 400) and
    /// keeps what was read before it.
    ///
    /// With `boundary=` in `contentType` the delimiter is `--` and the boundary, and the bytes
    /// before its first occurrence are skipped; CGI.pm died when there is none, when it is the
    /// closing one, or when nothing follows it. Without `boundary=`, CGI.pm took the body's first
    /// line, whatever it says, as the delimiter (`--X` for boundary `X`) and counted it against
    /// `Content-Length`: it died when nothing follows the line, when the line has no CRLF, and on
    /// a body without `Content-Length` (a chunked one).
    static func parameters(_ body: [UInt8], contentType: String, hasContentLength: Bool,
                           add: (_ name: ArraySlice<UInt8>, _ value: ArraySlice<UInt8>) -> Void) -> Bool {
        guard let boundary = boundary(in: contentType) else {
            guard hasContentLength, let lineEnd = ByteSearch("\r\n").firstRange(in: body),
                  lineEnd.upperBound < body.count else { return false }
            return parts(of: body, delimitedBy: Array(body[..<lineEnd.lowerBound]), from: lineEnd.upperBound, add: add)
        }
        let delimiter = Array("--".utf8) + boundary
        guard let first = ByteSearch(delimiter).firstRange(in: body)?.lowerBound else { return false }
        // CGI.pm skipped the preamble a chunk at a time while the chunks read as true in Perl: an
        // empty or "0" last chunk stopped it at the delimiter, which then read as a header line.
        if preambleStopsEarly(body, delimiterAt: first, delimiterLength: delimiter.count) {
            return parts(of: body, delimitedBy: delimiter, from: first, add: add)
        }
        guard !body[first...].starts(with: delimiter + Array("--".utf8)) else { return false }
        let start = afterDelimiter(at: first + delimiter.count, in: body)
        guard start < body.count else { return false }
        return parts(of: body, delimitedBy: delimiter, from: start, add: add)
    }

    /// The parts from `start`, the first part's header block.
    private static func parts(of body: [UInt8], delimitedBy delimiter: [UInt8], from start: Int,
                              add: (_ name: ArraySlice<UInt8>, _ value: ArraySlice<UInt8>) -> Void) -> Bool {
        let closing = delimiter + Array("--".utf8)
        // Linear searches: the client picks both the delimiter and the body.
        let nextDelimiter = ByteSearch(delimiter), blankLine = ByteSearch("\r\n\r\n")
        // CGI.pm looked for a part's blank line in a buffer of 4,096 bytes (or the delimiter's
        // length if longer) plus the delimiter and 2, and died when the buffer was full without one.
        let window = max(4096, delimiter.count) + delimiter.count + 2
        var position = start
        while position < body.count {
            let buffered = body[position..<min(body.count, position + window)]
            guard let headerEnd = blankLine.firstRange(in: buffered) else { return buffered.endIndex == body.count }
            let headers = Self.headers(body[position..<(headerEnd.lowerBound + 2)])
            guard !headers.isEmpty else { break }
            position = headerEnd.upperBound
            guard let next = nextDelimiter.firstRange(in: body[position...])?.lowerBound else { return false }
            let disposition = headers["Content-Disposition"] ?? []
            add(Self.name(in: disposition) ?? [], value(of: body[position..<max(position, next - 2)], headers: headers))
            if body[next...].starts(with: closing) { break }
            position = afterDelimiter(at: next + delimiter.count, in: body)
        }
        return true
    }

    /// A part's value: its content, or for a file the handle CGI.pm made, which reads as the file's
    /// name. A part typed `multipart/mixed` (Opera's upload of several files) is a file named
    /// `multipart/mixed` when it has no name of its own. Perl's `||=` turned a file name written
    /// `filename=0` into none, so that part is an ordinary value; `filename="0"` stays a file, but
    /// its handle kept no name and reads as empty.
    private static func value(of content: ArraySlice<UInt8>, headers: [String: [UInt8]]) -> ArraySlice<UInt8> {
        let isMixed = headers["Content-Type"]?.firstRange(of: multipartMixed) != nil
        let zero = Array("0".utf8)
        let (written, isQuoted) = filename(in: headers["Content-Disposition"] ?? [])
        let filename = !isQuoted && written.elementsEqual(zero) ? [] : written
        if filename.isEmpty { return isMixed ? multipartMixed[...] : content }
        return filename.elementsEqual(zero) ? [] : filename
    }

    private static let multipartMixed = Array("multipart/mixed".utf8)

    /// After a delimiter CGI.pm dropped a line feed and a carriage return after it (`s/^\n\r?//`,
    /// not the CRLF it meant).
    private static func afterDelimiter(at index: Int, in body: [UInt8]) -> Int {
        guard index < body.count, body[index] == 0x0A else { return index }
        return index + 1 < body.count && body[index + 1] == 0x0D ? index + 2 : index + 1
    }

    /// Whether CGI.pm's `while ($buffer->read(0)) {}` ended before the first delimiter. It read
    /// windows of 4,096 bytes plus the delimiter and 2, each time handing back all but the
    /// delimiter's length and 1 while no delimiter was in the window; the window that holds the
    /// delimiter gave the bytes before it less 2, and that chunk is false when empty or `0`.
    /// Delimiters of 4,094 bytes or more left no room for chunks; they are not followed here.
    private static func preambleStopsEarly(_ body: [UInt8], delimiterAt offset: Int, delimiterLength: Int) -> Bool {
        let window = 4096, step = window - delimiterLength - 1
        guard step > 1, offset > 0 else { return false }
        let steps = offset > window + 2 ? (offset - window - 2 + step - 1) / step : 0
        let chunkStart = steps * step
        let chunkLength = offset - chunkStart - 2
        return chunkLength <= 0 || chunkLength == 1 && body[chunkStart] == UInt8(ascii: "0")
    }

    /// `Name: value` anywhere in the header block (folded lines joined), names capitalized as
    /// CGI.pm did (`content-disposition` is `Content-Disposition`); a later one wins.
    private static func headers(_ block: ArraySlice<UInt8>) -> [String: [UInt8]] {
        var text: [UInt8] = []
        var i = block.startIndex
        while i < block.endIndex {
            if block[i] == 0x0D, i + 2 < block.endIndex, block[i + 1] == 0x0A, isSpace(block[i + 2]) {
                text.append(0x20)
                i += 2
                while i < block.endIndex, isSpace(block[i]) { i += 1 }
            } else {
                text.append(block[i])
                i += 1
            }
        }
        var headers: [String: [UInt8]] = [:]
        var start = 0
        while let colon = text[start...].firstIndex(of: UInt8(ascii: ":")) {
            let nameStart = text[start..<colon].lastIndex { !isTokenByte($0) }.map { $0 + 1 } ?? start
            var valueStart = colon + 1
            while valueStart < text.count, isSpace(text[valueStart]) { valueStart += 1 }
            if nameStart < colon, valueStart > colon + 1 {
                // Looked for only here: a block of colons would otherwise scan to its end at each.
                let valueEnd = text[valueStart...].firstIndex { $0 == 0x0D || $0 == 0x0A } ?? text.count
                headers[capitalized(text[nameStart..<colon])] = Array(text[valueStart..<valueEnd])
                start = valueEnd
            } else {
                start = colon + 1
            }
        }
        return headers
    }

    /// The part's name as CGI.pm 4.55's `_mp_value_parse` found it. When `name="` follows a blank or
    /// `;` anywhere, the first such quoted name that ends. (4.55 let a `\"` inside it stand; that
    /// changes only names holding a backslash, which no script reads.) Otherwise an unquoted name,
    /// `name=username`: the first `name=` after a blank or `;`, then every byte up to a space, tab,
    /// CR, LF or one of `()<>@,;:\"/[]?={}` (it may be empty).
    private static func name(in disposition: [UInt8]) -> ArraySlice<UInt8>? {
        let quoted = keyStarts(Array("name=\"".utf8), in: disposition)
        guard !quoted.isEmpty else {
            guard let start = keyStarts(Array("name=".utf8), in: disposition).first else { return nil }
            let stops = Array("()<>@,;:\\\"/[]?={} \r\n\t".utf8)
            return disposition[start...].prefix { !stops.contains($0) }
        }
        for start in quoted {
            if let end = disposition[start...].firstIndex(of: UInt8(ascii: "\"")) { return disposition[start..<end] }
        }
        return nil
    }

    /// Where the text after each `key` that follows a blank or `;` starts (`[\s;]key`).
    private static func keyStarts(_ key: [UInt8], in disposition: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var searchFrom = 1
        while searchFrom < disposition.count, let found = disposition[searchFrom...].firstRange(of: key) {
            let before = disposition[found.lowerBound - 1]
            if before == UInt8(ascii: ";") || isSpace(before) { starts.append(found.upperBound) }
            searchFrom = found.lowerBound + 1
        }
        return starts
    }

    /// ` filename=` in any letter case, then a quoted string or a run of token characters (letters
    /// in any case): the name without its quotes, and whether it had them; empty when there is none.
    private static func filename(in disposition: [UInt8]) -> (name: ArraySlice<UInt8>, isQuoted: Bool) {
        let key = Array(" filename=".utf8)
        guard let found = disposition.indices.first(where: { index in
            disposition[index...].starts(with: key) { byte, keyByte in
                byte == keyByte || isLetter(keyByte) && byte | 0x20 == keyByte
            }
        }) else { return ([], false) }
        let rest = disposition[(found + key.count)...]
        if rest.first == UInt8(ascii: "\""), let end = rest.dropFirst().firstIndex(of: UInt8(ascii: "\"")) {
            return (rest[(rest.startIndex + 1)..<end], true)
        }
        return (rest.prefix { byte in
            isLetter(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "!#'*+,.^_`{}|~".utf8.contains(byte)
        }, false)
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }

    /// Perl's `\s`: space, tab, line feed, vertical tab, form feed, carriage return.
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// `[-\w!#$%&'*+.^_`|{}~]`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        isWordByte(byte) || "-!#$%&'*+.^`|{}~".utf8.contains(byte)
    }

    /// Each letter that starts a run of word characters in upper case (`\b(\w)` → `uc`).
    private static func capitalized(_ name: ArraySlice<UInt8>) -> String {
        var previousIsWord = false
        let bytes = name.map { byte -> UInt8 in
            let isWord = isWordByte(byte)
            defer { previousIsWord = isWord }
            return isWord && !previousIsWord && isLetter(byte) ? byte - 32 : byte
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        isLetter(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }
}
