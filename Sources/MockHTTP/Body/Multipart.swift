/// One field of a `multipart/form-data` body.
public struct MultipartPart: Sendable, Equatable {
    public var name: String
    /// Present for file fields (possibly empty when no file was chosen).
    public var filename: String?
    public var contentType: String?
    public var body: [UInt8]

    public init(name: String, filename: String? = nil, contentType: String? = nil, body: [UInt8]) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.body = body
    }
}

/// `multipart/form-data` (RFC 7578 on top of RFC 2046). Line ends may be CRLF or bare LF.
public enum Multipart {
    /// The `boundary` parameter of a `multipart/...` Content-Type, quoted or not;
    /// nil when absent or not a legal boundary (1–70 printable characters).
    public static func boundary(fromContentType contentType: String) -> String? {
        guard let header = HeaderValue.split(Array(contentType.utf8)[...]),
              header.value.lowercased().hasPrefix("multipart/"),
              let boundary = header.parameter("boundary"),
              isLegalBoundary(boundary) else { return nil }
        return boundary
    }

    /// The first `FormDecoding.maxPairs` parts in order (the cap of the course servers, counted the
    /// same way); nil when the body is not a complete multipart body: no opening delimiter, no
    /// closing `--boundary--`, or a part without a `Content-Disposition: form-data` name. Preamble
    /// and epilogue are ignored.
    public static func parse(_ body: [UInt8], boundary: String) -> [MultipartPart]? {
        guard isLegalBoundary(boundary) else { return nil }
        var finder = DelimiterFinder(body: body, delimiter: Array(("--" + boundary).utf8))

        guard var current = finder.next() else { return nil }
        var parts: [MultipartPart] = []
        while !current.isClosing {
            guard let next = finder.next() else { return nil }
            let bytes = body[current.contentStart..<next.lineBreakStart]
            if parts.count < FormDecoding.maxPairs {
                guard let part = parsePart(bytes) else { return nil }
                parts.append(part)
            } else {
                // Parts past the limit are still checked, so whether the body is complete stays
                // the same, but nothing of them is built: a body of many tiny parts is mostly these.
                guard let headers = partHeaders(bytes), formDataDisposition(headers.fields) != nil else { return nil }
            }
            current = next
        }
        return parts
    }

    /// RFC 2046 allows 1–70 characters and no trailing space; any printable ASCII is
    /// accepted, which also guarantees the boundary contains no line break.
    private static func isLegalBoundary(_ boundary: String) -> Bool {
        let utf8 = boundary.utf8
        return (1...70).contains(utf8.count)
            && utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
            && utf8.last != UInt8(ascii: " ")
    }

    /// Headers, a blank line, then the content. A part that ends right after its
    /// headers has an empty body.
    private static func parsePart(_ bytes: ArraySlice<UInt8>) -> MultipartPart? {
        guard let (headers, bodyStart) = partHeaders(bytes), let disposition = formDataDisposition(headers),
              let name = disposition.parameter("name") else { return nil }
        let filename = disposition.parameter("filename")
        let contentType = header("Content-Type", in: headers).map { String(decoding: $0, as: UTF8.self).trimmingASCIISpaces() }
        return MultipartPart(name: name, filename: filename, contentType: contentType,
                             body: Array(bytes[bodyStart...]))
    }

    private typealias PartHeader = (name: ArraySlice<UInt8>, value: [UInt8])

    /// The header lines of a part and where its content starts; nil when a line is not a header.
    private static func partHeaders(_ bytes: ArraySlice<UInt8>) -> (fields: [PartHeader], bodyStart: Int)? {
        var headers: [PartHeader] = []
        var bodyStart = bytes.endIndex
        var lineStart = bytes.startIndex
        while lineStart < bytes.endIndex {
            let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.endIndex
            var line = bytes[lineStart..<lineEnd]
            if line.last == 0x0D { line = line.dropLast() }
            let afterLine = min(lineEnd + 1, bytes.endIndex)
            if line.isEmpty {
                bodyStart = afterLine
                break
            }
            if line.first == 0x20 || line.first == 0x09 {
                // Obsolete folding: the line continues the previous header.
                guard !headers.isEmpty else { return nil }
                headers[headers.count - 1].value += line
            } else {
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
                headers.append((name: line[..<colon], value: Array(line[(colon + 1)...])))
            }
            lineStart = afterLine
        }
        return (headers, bodyStart)
    }

    /// The value of the first header of that name (spaces around the name ignored, case too),
    /// compared byte by byte: no string is made of the names passed over.
    private static func header(_ name: StaticString, in headers: [PartHeader]) -> [UInt8]? {
        let wanted = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        for header in headers {
            var field = header.name.drop(while: isSpace)
            while let last = field.last, isSpace(last) { field = field.dropLast() }
            let found = field.elementsEqual(wanted) { typed, expected in
                let letter = (expected | 0x20) >= 0x61 && (expected | 0x20) <= 0x7A
                return typed == expected || (letter && typed | 0x20 == expected | 0x20)
            }
            if found { return header.value }
        }
        return nil
    }

    /// `Content-Disposition: form-data; name="…"`, split; nil when the part has none.
    private static func formDataDisposition(_ headers: [PartHeader]) -> HeaderValue? {
        guard let disposition = header("Content-Disposition", in: headers),
              let parsed = HeaderValue.split(disposition[...]),
              parsed.value.lowercased() == "form-data",
              parsed.parameter("name") != nil else { return nil }
        return parsed
    }
}

/// Finds delimiter lines (`--boundary` at the start of the body or of a line,
/// followed by optional spaces and a line end, or by `--` when closing).
///
/// Candidates are found by looking for a line feed followed by the delimiter.
/// The delimiter contains no line feed, so the bytes compared after one
/// candidate never hold another candidate: the scan is linear in the body.
private struct DelimiterFinder {
    struct Found {
        /// Where the line break before the delimiter begins: the end of the previous part.
        var lineBreakStart: Int
        /// Just past the delimiter line.
        var contentStart: Int
        var isClosing: Bool
    }

    let body: [UInt8]
    let delimiter: [UInt8]
    /// Where to look for the next line feed.
    var searchFrom = 0
    var atBodyStart = true

    mutating func next() -> Found? {
        if atBodyStart {
            atBodyStart = false
            if let found = delimiterLine(at: 0, lineBreakStart: 0) {
                // The line feed ending this delimiter line must not be taken for the one
                // before the next delimiter (a part would then end before it begins).
                searchFrom = found.contentStart
                return found
            }
        }
        while let lf = body[searchFrom...].firstIndex(of: 0x0A) {
            searchFrom = lf + 1
            let lineBreakStart = lf > 0 && body[lf - 1] == 0x0D ? lf - 1 : lf
            if let found = delimiterLine(at: lf + 1, lineBreakStart: lineBreakStart) {
                searchFrom = found.contentStart
                return found
            }
        }
        searchFrom = body.count
        return nil
    }

    /// Whether a delimiter line starts at `start`.
    private func delimiterLine(at start: Int, lineBreakStart: Int) -> Found? {
        let afterDelimiter = start + delimiter.count
        guard afterDelimiter <= body.count, body[start..<afterDelimiter].elementsEqual(delimiter) else { return nil }
        let dash = UInt8(ascii: "-")
        if afterDelimiter + 2 <= body.count, body[afterDelimiter] == dash, body[afterDelimiter + 1] == dash {
            return Found(lineBreakStart: lineBreakStart, contentStart: body.count, isClosing: true)
        }
        // Transport padding, then the line end.
        var i = afterDelimiter
        while i < body.count, body[i] == 0x20 || body[i] == 0x09 { i += 1 }
        if i < body.count, body[i] == 0x0D { i += 1 }
        guard i < body.count, body[i] == 0x0A else { return nil }
        return Found(lineBreakStart: lineBreakStart, contentStart: i + 1, isClosing: false)
    }
}

/// A header value like `form-data; name="a"; filename=b.txt`, split up.
struct HeaderValue {
    var value: String
    /// Names as written, quoted strings unescaped.
    var parameters: [(name: String, value: String)]

    /// The first parameter of that name, compared case-insensitively.
    func parameter(_ name: String) -> String? {
        parameters.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Nil when a quoted string is not terminated.
    static func split(_ bytes: ArraySlice<UInt8>) -> HeaderValue? {
        let semicolon = UInt8(ascii: ";"), quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var i = bytes.firstIndex(of: semicolon) ?? bytes.endIndex
        let value = String(decoding: bytes[bytes.startIndex..<i], as: UTF8.self).trimmingASCIISpaces()
        var parameters: [(name: String, value: String)] = []
        while i < bytes.endIndex {
            i += 1  // past the ';'
            let nameEnd = bytes[i...].firstIndex { $0 == UInt8(ascii: "=") || $0 == semicolon } ?? bytes.endIndex
            let name = String(decoding: bytes[i..<nameEnd], as: UTF8.self).trimmingASCIISpaces()
            i = nameEnd
            guard i < bytes.endIndex, bytes[i] == UInt8(ascii: "=") else {
                if !name.isEmpty { parameters.append((name: name, value: "")) }
                continue
            }
            i += 1
            while i < bytes.endIndex, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
            var raw: [UInt8] = []
            let quoted = i < bytes.endIndex && bytes[i] == quote
            if quoted {
                i += 1
                while true {
                    guard i < bytes.endIndex else { return nil }
                    if bytes[i] == quote { break }
                    if bytes[i] == backslash, i + 1 < bytes.endIndex { i += 1 }
                    raw.append(bytes[i])
                    i += 1
                }
            } else {
                raw = Array(bytes[i..<(bytes[i...].firstIndex(of: semicolon) ?? bytes.endIndex)])
            }
            // On to the next ';' (past anything between a closing quote and it).
            i = bytes[i...].firstIndex(of: semicolon) ?? bytes.endIndex
            let text = String(decoding: raw, as: UTF8.self)
            parameters.append((name: name, value: quoted ? text : text.trimmingASCIISpaces()))
        }
        return HeaderValue(value: value, parameters: parameters)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs, found among the UTF-8 bytes (spaces and tabs
    /// are never part of another character's bytes) rather than by Character.
    func trimmingASCIISpaces() -> String {
        let text = String(self)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = text.utf8.firstIndex(where: { !isSpace($0) }),
              let last = text.utf8.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(text[first...last])
    }
}
