// Shared by every harness: each binary is one harness plus the MockHTTP sources it exercises,
// compiled into one module so the internal request parser is reachable (see build.sh).

/// Stops the fuzzer with a message; libFuzzer records the input that got here as a crash.
func fuzzFailure(_ message: String) -> Never {
    fatalError("fuzz invariant broken: \(message)")
}

/// Small limits, so a few-KiB input reaches every limit check of the parser.
var fuzzLimits: ParserLimits {
    var limits = ParserLimits()
    limits.maxRequestLine = 64
    limits.maxHeaderBlock = 256
    limits.maxHeaderCount = 8
    limits.maxBody = 512
    return limits
}

/// What a parser made of a byte stream: the requests, then how it ended.
struct ParseOutcome: Equatable {
    var requests: [String] = []
    var failed = false
}

/// Runs the request parser over `bytes`, delivered in pieces of `pieceSize` (0: all at once).
func parseStream(_ bytes: [UInt8], pieceSize: Int, limits: ParserLimits) -> ParseOutcome {
    var parser = RequestParser(limits: limits)
    var outcome = ParseOutcome()
    var offset = 0
    let step = pieceSize == 0 ? max(bytes.count, 1) : pieceSize
    while offset < bytes.count {
        let end = min(offset + step, bytes.count)
        bytes[offset..<end].withUnsafeBytes { parser.append($0) }
        offset = end
        draining: while true {
            switch parser.next() {
            case .incomplete:
                break draining
            case .sendContinue:
                continue
            case let .failure(failure), let .bodyRefused(_, failure):
                guard (400...599).contains(failure.status) else { fuzzFailure("status \(failure.status)") }
                outcome.failed = true
                return outcome
            case let .request(head, body):
                guard body.count <= limits.maxBody else { fuzzFailure("body over the limit") }
                let headers = head.headers.map { "\($0.name)=\($0.value)" }.joined(separator: "\n")
                outcome.requests.append("\(head.method) \(head.target) 1.\(head.versionMinor) \(head.keepAlive)\n\(headers)\n\(body)")
            }
        }
    }
    return outcome
}

/// The same bytes must parse the same way whether they arrive at once or in small pieces.
func checkSplitsAgree(_ bytes: [UInt8], pieceSize: Int) {
    let whole = parseStream(bytes, pieceSize: 0, limits: fuzzLimits)
    let pieces = parseStream(bytes, pieceSize: pieceSize, limits: fuzzLimits)
    guard whole == pieces else {
        fuzzFailure("whole \(whole) differs from pieces of \(pieceSize): \(pieces)")
    }
}
