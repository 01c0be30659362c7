import MockSupport

/// Limits the parser enforces; each violation has its own status (docs/reliability.md#memory-and-size-limits).
public struct ParserLimits: Sendable {
    public var maxRequestLine = 8 * 1024
    public var maxHeaderBlock = 64 * 1024
    public var maxHeaderCount = 256
    public var maxBody = 16 * 1024 * 1024

    public init() {}
}

struct RequestHead {
    var method: String
    var target: String
    var versionMinor: Int
    var headers: HTTPHeaders
    var keepAlive: Bool
    var expectsContinue: Bool
}

/// Framing or syntax errors: answered by the HTTP layer, then the connection is closed.
struct ParseFailure: Error, Equatable {
    var status: Int
    /// The answer's body (plain text), as clients have always read it.
    var message: String
    /// Why, in a few words for the person at the console and in the journal; never sent.
    var reason: String
    /// The method and target, when the request line could be read, for the log line.
    var requestLine: RequestLine?
}

/// A request line as far as it could be read, for a request the HTTP layer refused or cut off.
struct RequestLine: Equatable {
    var method: String
    /// At most `RequestLine.targetLimit` bytes, then `…`.
    var target: String

    static let targetLimit = 256
}

extension RequestLine {
    /// The first two words of the line at the start of `bytes`; nil when there are not two.
    init?(_ bytes: ArraySlice<UInt8>) {
        let line = bytes.prefix { $0 != 13 && $0 != 10 }
        let words = line.split(separator: 32, maxSplits: 2, omittingEmptySubsequences: false)
        guard words.count >= 2, !words[0].isEmpty, words[0].count <= 32, words[0].allSatisfy(isTokenByte),
              !words[1].isEmpty else { return nil }
        method = String(decoding: words[0], as: UTF8.self)
        let target = words[1].prefix(Self.targetLimit)
        self.target = String(decoding: target, as: UTF8.self) + (target.count < words[1].count ? "…" : "")
    }
}

enum ParseStep {
    case incomplete
    /// The client waits for `100 Continue` before sending the body.
    case sendContinue
    case request(RequestHead, [UInt8])
    case failure(ParseFailure)
    /// The head is read but its body is refused, over the size limit (413) or the memory budget
    /// (503): answered (by the route's API where it has one), then the connection is closed
    /// without reading the body.
    case bodyRefused(RequestHead, ParseFailure)
}

/// An incremental HTTP/1.x request parser: bytes go in as they arrive, complete requests come out.
/// Strict about framing (one Content-Length, no CL with TE, only `chunked`), as request smuggling
/// lives in the gaps between lenient parsers.
struct RequestParser {
    let limits: ParserLimits
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the end of the head resumes, so each byte is scanned once.
    private var scanned = 0
    private var state = State.head
    /// The chunked body read so far; outside the state so that appending never copies it.
    private var chunkedBody: [UInt8] = []
    private var continueSent = false

    private enum State {
        case head
        case fixedBody(RequestHead, length: Int)
        case chunkedBody(RequestHead, phase: ChunkPhase)
    }

    private enum ChunkPhase {
        case size
        case data(remaining: Int)
        case dataEnd
        /// `bytes`: the size of the trailer lines read so far.
        case trailers(count: Int, bytes: Int)
    }

    init(limits: ParserLimits) {
        self.limits = limits
    }

    var hasBufferedBytes: Bool { start < buffer.count }

    var isReadingBody: Bool {
        if case .head = state { return false }
        return true
    }

    /// The method and target of the request being read, when its line has arrived (for a request
    /// cut off or timed out before it was whole).
    var pendingRequestLine: RequestLine? {
        switch state {
        case .head: return hasBufferedBytes ? RequestLine(buffer[start..<min(buffer.count, start + limits.maxRequestLine)]) : nil
        case let .fixedBody(head, _), let .chunkedBody(head, _): return RequestLine(method: head.method, target: head.target)
        }
    }

    var unparsedBytes: Int { buffer.count - start }

    /// Bytes of an admitted body that have not arrived yet.
    var bodyBytesAwaited: Int {
        switch state {
        case .head: return 0
        case let .fixedBody(_, length): return max(0, start + length - buffer.count)
        case let .chunkedBody(_, phase):
            if case let .data(remaining) = phase { return max(0, remaining - unparsedBytes) }
            return 0
        }
    }

    /// The memory this parser holds or has admitted a body into: its buffers, and the part of an
    /// admitted body still to come.
    var heldBytes: Int {
        max(buffer.capacity, buffer.count + bodyBytesAwaited) + chunkedBody.capacity
    }

    /// Drops everything read (the connection is closing and its input is no longer parsed).
    mutating func discardInput() {
        buffer = []
        chunkedBody = []
        start = 0
        scanned = 0
        state = .head
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next step. `admit(size, more)` is asked before a body grows by `more` bytes to `size`
    /// (its declared length, or its chunks so far and the next one); false refuses the body with a 503.
    mutating func next(admittingBody admit: (_ size: Int, _ more: Int) -> Bool = { _, _ in true }) -> ParseStep {
        switch state {
        case .head:
            return parseHead(admit)
        case let .fixedBody(head, length):
            guard buffer.count - start >= length else { return continueIfExpected(head) }
            let body = Array(buffer[start..<start + length])
            start += length
            finishRequest()
            return .request(head, body)
        case let .chunkedBody(head, phase):
            return parseChunks(head: head, phase: phase, admit)
        }
    }

    private mutating func finishRequest() {
        state = .head
        scanned = start
        continueSent = false
        // A large body's storage goes back once nothing is left to parse, not when the connection ends.
        if start == buffer.count && buffer.capacity > Self.keptCapacity {
            buffer = []
            start = 0
            scanned = 0
        }
    }

    private static let keptCapacity = 64 * 1024

    private var overBudget: ParseFailure {
        ParseFailure(status: 503, message: "Too many request bodies are in memory at once; retry shortly.",
                     reason: "request bodies in memory at once are over --memory-budget; the body was not read")
    }

    private mutating func continueIfExpected(_ head: RequestHead) -> ParseStep {
        if head.expectsContinue && !continueSent {
            continueSent = true
            return .sendContinue
        }
        return .incomplete
    }

    // MARK: Head

    private mutating func parseHead(_ admit: (Int, Int) -> Bool) -> ParseStep {
        // Tolerate empty lines before a request (RFC 9112 §2.2), common after a body's extra CRLF.
        while buffer.count - start >= 2 && buffer[start] == 13 && buffer[start + 1] == 10 {
            start += 2
            scanned = max(scanned, start)
        }
        guard let end = findHeadEnd() else {
            // Judge the partial head as decodeHead will judge the whole one, so how the bytes
            // were split into reads never changes the answer: the request line is counted
            // without its CR, and up to 3 bytes of the final CRLFCRLF may already be here.
            let pending = buffer.count - start
            var lineLength = (buffer[start...].firstIndex(of: 10) ?? buffer.count) - start
            if lineLength > 0 && buffer[start + lineLength - 1] == 13 { lineLength -= 1 }
            // The line named is the same however the bytes were split: a request line over the
            // limit is here up to the limit, and one below it is here whole.
            if lineLength > limits.maxRequestLine {
                return .failure(requestLineTooLong(RequestLine(buffer[start..<start + limits.maxRequestLine])))
            }
            if pending > limits.maxHeaderBlock + limits.maxRequestLine + 3 {
                return .failure(headerBlockTooLarge(RequestLine(buffer[start..<start + lineLength])))
            }
            return .incomplete
        }
        let headBytes = buffer[start..<end]
        start = end + 4
        scanned = start
        switch decodeHead(headBytes) {
        case var .failure(failure):
            failure.requestLine = RequestLine(headBytes)
            return .failure(failure)
        case let .success((head, framing)):
            switch framing {
            case .none:
                return .request(head, [])
            case let .length(length):
                guard admit(length, length) else { return .bodyRefused(head, overBudget) }
                // Room for the whole body at once: growing by doubling would copy it and hold up to twice as much.
                buffer.reserveCapacity(start + length)
                state = .fixedBody(head, length: length)
            case .chunked:
                state = .chunkedBody(head, phase: .size)
            case .tooLarge:
                return .bodyRefused(head, bodyTooLarge)
            }
            return next(admittingBody: admit)
        }
    }

    private mutating func findHeadEnd() -> Int? {
        var index = max(scanned, start)
        let count = buffer.count
        while index + 3 < count {
            if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                return index
            }
            index += 1
        }
        scanned = max(start, count - 3)
        return nil
    }

    private enum Framing {
        case none
        case length(Int)
        case chunked
        /// A declared length over the limit.
        case tooLarge
    }

    private func decodeHead(_ bytes: ArraySlice<UInt8>) -> Result<(RequestHead, Framing), ParseFailure> {
        func bad(_ message: String, _ status: Int = 400, reason: String) -> Result<(RequestHead, Framing), ParseFailure> {
            .failure(ParseFailure(status: status, message: message, reason: reason))
        }
        // A bare CR or LF anywhere, or a NUL, makes line boundaries ambiguous.
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0 { return bad("NUL byte in the request head.", reason: "a NUL byte in the request head") }
            if byte == 13 {
                guard index + 1 < bytes.endIndex, bytes[index + 1] == 10 else {
                    return bad("Bare CR in the request head.", reason: "a CR without LF in the request head (lines end with CRLF)")
                }
                lines.append(bytes[lineStart..<index])
                index += 2
                lineStart = index
                continue
            }
            if byte == 10 { return bad("Bare LF in the request head.", reason: "an LF without CR in the request head (lines end with CRLF)") }
            index += 1
        }
        lines.append(bytes[lineStart..<bytes.endIndex])

        let requestLine = lines[0]
        if requestLine.count > limits.maxRequestLine { return .failure(requestLineTooLong(nil)) }
        if bytes.count - requestLine.count > limits.maxHeaderBlock { return .failure(headerBlockTooLarge(nil)) }
        if lines.count - 1 > limits.maxHeaderCount {
            return bad("More than \(limits.maxHeaderCount) header fields.", 431,
                       reason: "more than \(limits.maxHeaderCount) header fields")
        }
        let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[0].allSatisfy(isTokenByte) else {
            return bad("Malformed request line.", reason: "a malformed request line (expected METHOD /path HTTP/1.1, one space apart)")
        }
        let version = Array(parts[2])
        guard isVersionSyntax(version) else {
            return bad("Malformed HTTP version in the request line.", reason: "a malformed HTTP version in the request line")
        }
        // RFC 9112 §2.3: a later 1.x minor version is served as the highest one we speak.
        guard version[5] == 49 else {
            return bad("HTTP version not supported: only HTTP/1.x is.", 505, reason: "an HTTP version other than 1.x")
        }
        let versionMinor = version[7] == 48 ? 0 : 1
        guard parts[1].allSatisfy({ $0 > 32 && $0 != 127 }), let sentTarget = String(validUTF8: parts[1]),
              let target = originForm(of: sentTarget) else {
            return bad("Malformed request target.",
                       reason: "a malformed request target (a control character, invalid UTF-8, or a URL without a host)")
        }

        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let first = line.first else { continue }
            if first == 32 || first == 9 {
                return bad("Obsolete line folding in a header field.", reason: "a header line starting with a space or tab (obsolete line folding)")
            }
            guard let colon = line.firstIndex(of: 58) else {
                return bad("Header line without a colon.", reason: "a header line without a colon")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
                return bad("Malformed header field name.", reason: "a malformed header name (empty, or a space or other separator in it)")
            }
            var value = line[(colon + 1)...]
            while let byte = value.first, byte == 32 || byte == 9 { value = value.dropFirst() }
            while let byte = value.last, byte == 32 || byte == 9 { value = value.dropLast() }
            if value.contains(where: { ($0 < 32 && $0 != 9) || $0 == 127 }) {
                return bad("Control character in a header field value.", reason: "a control character in a header value")
            }
            headers.add(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }

        // RFC 9112 §3.2: a server cannot tell which host an HTTP/1.1 request without one, or with two, is for.
        let hosts = headers.values("Host").count
        if hosts > 1 { return bad("More than one Host header field.", reason: "two Host headers") }
        if hosts == 0 && versionMinor == 1 {
            return bad("HTTP/1.1 request without a Host header field.", reason: "Host header missing (HTTP/1.1 requires one)")
        }

        var framing = Framing.none
        let lengths = headers.values("Content-Length")
        let encodings = headers.values("Transfer-Encoding")
        if !encodings.isEmpty {
            if !lengths.isEmpty {
                return bad("Content-Length together with Transfer-Encoding.", reason: "both Content-Length and Transfer-Encoding")
            }
            guard encodings.count == 1, encodings[0].trimmingASCIISpaces().caseInsensitiveEquals("chunked") else {
                return bad("Only Transfer-Encoding: chunked is supported.", 501, reason: "a Transfer-Encoding other than chunked")
            }
            framing = .chunked
        } else if !lengths.isEmpty {
            guard lengths.count == 1 else { return bad("Duplicate Content-Length.", reason: "two Content-Length headers") }
            let digits = lengths[0].utf8
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                return bad("Invalid Content-Length.", reason: "a Content-Length that is not a whole number")
            }
            // Compare digit counts first so absurd lengths never overflow.
            let length = digits.count <= 18 ? Int(lengths[0]) ?? Int.max : Int.max
            if length > limits.maxBody {
                framing = .tooLarge
            } else if length > 0 {
                framing = .length(length)
            }
        }

        var expectsContinue = false
        if let expect = headers["Expect"] {
            guard expect.trimmingASCIISpaces().caseInsensitiveEquals("100-continue") else {
                return bad("Only Expect: 100-continue is supported.", 417, reason: "an Expect header other than 100-continue")
            }
            expectsContinue = versionMinor == 1
        }

        let connection = headers.values("Connection").flatMap { $0.split(separator: ",") }
            .map { String($0).trimmingASCIISpaces() }
        // RFC 9112 §6.1: HTTP/1.0 did not have chunked framing, so the connection cannot be trusted after one.
        let keepAlive = versionMinor == 1
            ? !connection.contains { $0.caseInsensitiveEquals("close") }
            : connection.contains { $0.caseInsensitiveEquals("keep-alive") } && encodings.isEmpty

        let head = RequestHead(method: String(decoding: parts[0], as: UTF8.self), target: target,
                               versionMinor: versionMinor, headers: headers, keepAlive: keepAlive,
                               expectsContinue: expectsContinue)
        return .success((head, framing))
    }

    /// The path and query of the target: an absolute-form target (`http://host/path?q`, RFC 9112
    /// §3.2.2) is served as its origin form (`/path?q`); nil for an absolute form without a host.
    private func originForm(of target: String) -> String? {
        guard !target.hasPrefix("/") else { return target }
        let utf8 = target.utf8
        guard let colon = utf8.firstIndex(of: 58) else { return target }
        let scheme = String(target[..<colon])
        guard scheme.caseInsensitiveEquals("http") || scheme.caseInsensitiveEquals("https"),
              target[colon...].hasPrefix("://") else { return target }
        let authorityStart = utf8.index(colon, offsetBy: 3)
        let rest = target[authorityStart...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        guard authorityEnd > authorityStart else { return nil }
        let pathAndQuery = rest[authorityEnd...]
        return pathAndQuery.hasPrefix("/") ? String(pathAndQuery) : "/" + pathAndQuery
    }

    private func isVersionSyntax(_ bytes: [UInt8]) -> Bool {
        bytes.count == 8 && bytes.starts(with: Array("HTTP/".utf8)) && isDigit(bytes[5]) && bytes[6] == 46 && isDigit(bytes[7])
    }

    // MARK: Chunked bodies

    private mutating func parseChunks(head: RequestHead, phase: ChunkPhase, _ admit: (Int, Int) -> Bool) -> ParseStep {
        var phase = phase
        parsing: while true {
            switch phase {
            case .size:
                guard let scanned = scanLine(from: start) else {
                    return .failure(chunkFailure("Bare CR, LF or NUL in a chunk size line.", reason: "bad chunk size line (a bare CR, LF or NUL)", head))
                }
                if scanned.length > Self.maxChunkSizeLine {
                    return .failure(chunkFailure("Chunk size line too long.",
                                                 reason: "bad chunk size line (over \(Self.maxChunkSizeLine) bytes)", head))
                }
                guard scanned.complete else { break parsing }
                let lineEnd = start + scanned.length
                let line = buffer[start..<lineEnd]
                let sizeText = line.prefix { $0 != 59 }  // extensions after ';' are ignored
                let trimmed = sizeText.reversed().drop { $0 == 32 || $0 == 9 }.reversed()
                guard !trimmed.isEmpty, trimmed.count <= 15, trimmed.allSatisfy({ hexDigitValue($0) != nil }) else {
                    return .failure(chunkFailure("Invalid chunk size.", reason: "bad chunk size (expected up to 15 hexadecimal digits)", head))
                }
                let size = trimmed.reduce(0) { $0 * 16 + Int(hexDigitValue($1) ?? 0) }
                start = lineEnd + 2
                if chunkedBody.count + size > limits.maxBody {
                    return .bodyRefused(head, bodyTooLarge)
                }
                guard size == 0 || admit(chunkedBody.count + size, size) else { return .bodyRefused(head, overBudget) }
                phase = size == 0 ? .trailers(count: 0, bytes: 0) : .data(remaining: size)
            case let .data(remaining):
                let available = min(remaining, buffer.count - start)
                chunkedBody.append(contentsOf: buffer[start..<start + available])
                start += available
                phase = available < remaining ? .data(remaining: remaining - available) : .dataEnd
                if available < remaining { break parsing }
            case .dataEnd:
                guard buffer.count - start >= 2 else { break parsing }
                guard buffer[start] == 13 && buffer[start + 1] == 10 else {
                    return .failure(chunkFailure("Chunk data not followed by CRLF.",
                                                 reason: "chunk data longer than its size line said (no CRLF after it)", head))
                }
                start += 2
                phase = .size
            case let .trailers(count, bytes):
                guard let scanned = scanLine(from: start) else {
                    return .failure(chunkFailure("Bare CR, LF or NUL in a trailer field.", reason: "a bare CR, LF or NUL in a trailer field", head))
                }
                if bytes + scanned.length > limits.maxHeaderBlock {
                    return .failure(chunkFailure("Trailer section is larger than \(limits.maxHeaderBlock) bytes.", 431,
                                                 reason: "trailer section over \(Self.size(limits.maxHeaderBlock))", head))
                }
                guard scanned.complete else { break parsing }
                let line = buffer[start..<start + scanned.length]
                start += scanned.length + 2
                if line.isEmpty {
                    let body = chunkedBody
                    chunkedBody = []
                    finishRequest()
                    return .request(head, body)
                }
                // Trailer fields are read and discarded (none of the APIs uses them), but must be fields.
                guard let colon = line.firstIndex(of: 58), colon > line.startIndex,
                      line[..<colon].allSatisfy(isTokenByte) else {
                    return .failure(chunkFailure("Malformed trailer field.", reason: "a malformed trailer field", head))
                }
                if count + 1 > limits.maxHeaderCount {
                    return .failure(chunkFailure("Too many trailer fields.", 431,
                                                 reason: "more than \(limits.maxHeaderCount) trailer fields", head))
                }
                phase = .trailers(count: count + 1, bytes: bytes + line.count)
            }
        }
        // The rest has not arrived: go on from this phase when it does.
        state = .chunkedBody(head, phase: phase)
        if case .size = phase { return continueIfExpected(head) }
        return .incomplete
    }

    private static let maxChunkSizeLine = 1024
    private var bodyTooLarge: ParseFailure {
        ParseFailure(status: 413, message: "Request body is larger than \(limits.maxBody) bytes.",
                     reason: "a body larger than \(Self.size(limits.maxBody))")
    }

    private func requestLineTooLong(_ line: RequestLine?) -> ParseFailure {
        ParseFailure(status: 414, message: "Request line is longer than \(limits.maxRequestLine) bytes.",
                     reason: "request line longer than \(Self.size(limits.maxRequestLine)) (a long query string? send the data in a body)",
                     requestLine: line)
    }

    private func headerBlockTooLarge(_ line: RequestLine?) -> ParseFailure {
        ParseFailure(status: 431, message: "Request header block is larger than \(limits.maxHeaderBlock) bytes.",
                     reason: "header section over \(Self.size(limits.maxHeaderBlock)) (large cookies?)", requestLine: line)
    }

    /// A failure in the body of a request whose head was read.
    private func chunkFailure(_ message: String, _ status: Int = 400, reason: String, _ head: RequestHead) -> ParseFailure {
        ParseFailure(status: status, message: message, reason: reason,
                     requestLine: RequestLine(method: head.method, target: head.target))
    }

    /// `8 KiB` for a whole number of KiB or MiB, else bytes.
    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    /// Scans a chunk size or trailer line: its length so far, not counting a final CR (so a line is
    /// judged the same whether it arrived whole or in pieces), and whether its CRLF is here; nil for
    /// a bare CR or LF, or a NUL.
    private func scanLine(from lineStart: Int) -> (length: Int, complete: Bool)? {
        var index = lineStart
        while index < buffer.count {
            switch buffer[index] {
            case 13:
                guard index + 1 < buffer.count else { return (index - lineStart, false) }
                return buffer[index + 1] == 10 ? (index - lineStart, true) : nil
            case 10, 0:
                return nil
            default:
                index += 1
            }
        }
        return (index - lineStart, false)
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

/// RFC 9110 token characters, as allowed in methods and header names.
public func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case 48...57, 65...90, 97...122: return true
    case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: return true
    default: return false
    }
}
