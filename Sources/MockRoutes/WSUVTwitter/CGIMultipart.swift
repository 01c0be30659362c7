import MockHTTP

/// A `multipart/form-data` POST body as CGI.pm 4.55's `read_multipart` read it. It differs from the
/// multipart reading of the other APIs: the boundary is found anywhere in the body, a value loses
/// the two bytes before the next boundary, a file part's value is its file name, and a body whose
/// boundaries never end made the script die (a 500).
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
    /// died: no boundary in the body, only the closing one, or a part that no boundary ends. A
    /// part without headers ends the reading (CGI.pm's "malformed multipart" 400) and keeps what
    /// was read before it.
    static func parameters(_ body: [UInt8], boundary: [UInt8],
                           add: (_ name: ArraySlice<UInt8>, _ value: ArraySlice<UInt8>) -> Void) -> Bool {
        let delimiter = Array("--".utf8) + boundary
        let closing = delimiter + Array("--".utf8)
        // Linear searches: the client picks both the boundary and the body.
        let nextDelimiter = ByteSearch(delimiter), blankLine = ByteSearch("\r\n\r\n")
        guard var position = nextDelimiter.firstRange(in: body)?.lowerBound,
              !body[position...].starts(with: closing) else { return false }
        while true {
            position += delimiter.count
            guard let headerEnd = blankLine.firstRange(in: body[position...]) else { break }
            let headers = Self.headers(body[position..<(headerEnd.lowerBound + 2)])
            guard !headers.isEmpty else { break }
            position = headerEnd.upperBound
            guard let next = nextDelimiter.firstRange(in: body[position...])?.lowerBound else { return false }
            let disposition = headers["Content-Disposition"] ?? []
            let filename = Self.filename(in: disposition)
            // A file (or Opera's multipart/mixed upload) became a file handle that reads as its name.
            let isUpload = !filename.isEmpty || headers["Content-Type"]?.firstRange(of: Array("multipart/mixed".utf8)) != nil
            add(Self.name(in: disposition) ?? [], isUpload ? filename[...] : body[position..<max(position, next - 2)])
            position = next
            if body[position...].starts(with: closing) { break }
        }
        return true
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

    /// `[\s;]name="…"`: the first quoted name after a blank or `;`.
    private static func name(in disposition: [UInt8]) -> ArraySlice<UInt8>? {
        let key = Array("name=\"".utf8)
        var searchFrom = 0
        while let found = disposition[searchFrom...].firstRange(of: key) {
            let start = found.upperBound
            let before = found.lowerBound > 0 ? disposition[found.lowerBound - 1] : 0
            if before == UInt8(ascii: ";") || isSpace(before), let end = disposition[start...].firstIndex(of: UInt8(ascii: "\"")) {
                return disposition[start..<end]
            }
            searchFrom = found.lowerBound + 1
        }
        return nil
    }

    /// ` filename=` in any letter case, then a quoted string (quotes removed) or a run of token
    /// characters; empty when there is none.
    private static func filename(in disposition: [UInt8]) -> [UInt8] {
        let key = Array(" filename=".utf8)
        guard let found = disposition.indices.first(where: { index in
            disposition[index...].starts(with: key) { $0 | 0x20 == $1 | 0x20 }
        }) else { return [] }
        let rest = disposition[(found + key.count)...]
        if rest.first == UInt8(ascii: "\""), let end = rest.dropFirst().firstIndex(of: UInt8(ascii: "\"")) {
            return Array(rest[(rest.startIndex + 1)..<end])
        }
        return Array(rest.prefix { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || "!#'*+,.^_`{}|~".utf8.contains(byte)
        })
    }

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
            return isWord && !previousIsWord && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }
}
