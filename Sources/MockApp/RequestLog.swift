import Foundation
import MockHTTP
import MockSupport

/// One console line per request: time, client, method, path, status, bytes, milliseconds, api,
/// and for an error, in parentheses, why it happened.
public final class RequestLog: Sendable {
    public enum Format: String, Sendable {
        case text, json
    }

    private let format: Format
    private let output: @Sendable (String) -> Void

    public init(format: Format, output: @escaping @Sendable (String) -> Void = Console.standard.writeRecord) {
        self.format = format
        self.output = output
    }

    public func record(_ exchange: Exchange) {
        let request = exchange.request, response = exchange.response
        let milliseconds = (exchange.durationMilliseconds * 100).rounded() / 100
        switch format {
        case .text:
            let time = LocalTime.timeOfDay(request.receivedAt)
            let line = "\(time) \(request.peer.host) \(request.method) \(request.target) \(exchange.sentStatus.map(String.init) ?? "-") "
                + "\(exchange.responseBytes)B \(milliseconds)ms \(response.routeGroup ?? "-")"
            output(Self.printable(exchange.explanation.map { "\(line) (\(Self.capped($0)))" } ?? line))
        case .json:
            let line = LogLine(at: ISO8601.format(request.receivedAt), client: request.peer.description,
                               method: request.method, path: request.target, status: exchange.sentStatus,
                               bytes: exchange.responseBytes, ms: milliseconds, api: response.routeGroup,
                               reason: exchange.explanation.map(Self.capped))
            output(String(decoding: OrderedJSON.encode(line, escapeSlash: false), as: UTF8.self))
        }
    }

    /// A console line about a connection rather than a request (an https client on this port).
    public func note(_ text: String, from peer: PeerAddress, at date: Date) {
        switch format {
        case .text:
            output(Self.printable("\(LocalTime.timeOfDay(date)) \(peer.host) \(text)"))
        case .json:
            let line = NoteLine(at: ISO8601.format(date), client: peer.description, note: text)
            output(String(decoding: OrderedJSON.encode(line, escapeSlash: false), as: UTF8.self))
        }
    }

    /// A reason cut to 2 KiB of UTF-8, between characters' bytes: reasons repeat what clients sent.
    static func capped(_ reason: String) -> String {
        let limit = 2048
        guard reason.utf8.count > limit else { return reason }
        let bytes = Array(reason.utf8.prefix(limit + 1))
        var cut = limit
        while bytes[cut] & 0xC0 == 0x80 { cut -= 1 }  // not inside a character's bytes
        return String(decoding: bytes[..<cut], as: UTF8.self) + "…"
    }

    /// The line with its control characters spelled out (`\n`, `\u001B`): a text console line holds
    /// a client's field names and paths, which must not start lines of their own or reach the
    /// terminal as escape sequences. JSON lines are escaped by the encoder.
    static func printable(_ line: String) -> String {
        guard line.unicodeScalars.contains(where: isControl) else { return line }
        var out = String.UnicodeScalarView()
        for scalar in line.unicodeScalars {
            guard isControl(scalar) else { out.append(scalar); continue }
            out.append(contentsOf: (escapes[scalar] ?? String(format: "\\u%04X", scalar.value)).unicodeScalars)
        }
        return String(out)
    }

    private static let escapes: [Unicode.Scalar: String] = ["\n": "\\n", "\r": "\\r", "\t": "\\t"]

    /// C0 controls, DEL and the C1 controls (U+009B starts an escape sequence on some terminals).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private struct NoteLine: Encodable {
        var at: String
        var client: String
        var note: String
    }

    private struct LogLine: Encodable {
        var at: String
        var client: String
        var method: String
        var path: String
        var status: Int?
        var bytes: Int
        var ms: Double
        var api: String?
        var reason: String?
    }
}
