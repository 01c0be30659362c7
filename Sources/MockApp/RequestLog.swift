import Foundation
import MockHTTP

/// One console line per request: time, client, method, path, status, bytes, milliseconds, api,
/// and for an error, in parentheses, why it happened.
public final class RequestLog: Sendable {
    public enum Format: String, Sendable {
        case text, json
    }

    private let format: Format
    private let output: @Sendable (String) -> Void

    public init(format: Format, output: @escaping @Sendable (String) -> Void = Console.standard.write) {
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
            output(response.explanation.map { "\(line) (\($0))" } ?? line)
        case .json:
            let line = LogLine(at: ISO8601.format(request.receivedAt), client: request.peer.description,
                               method: request.method, path: request.target, status: exchange.sentStatus,
                               bytes: exchange.responseBytes, ms: milliseconds, api: response.routeGroup,
                               reason: response.explanation)
            output(String(decoding: OrderedJSON.encode(line, escapeSlash: false), as: UTF8.self))
        }
    }

    /// A console line about a connection rather than a request (an https client on this port).
    public func note(_ text: String, from peer: PeerAddress, at date: Date) {
        switch format {
        case .text:
            output("\(LocalTime.timeOfDay(date)) \(peer.host) \(text)")
        case .json:
            let line = NoteLine(at: ISO8601.format(date), client: peer.description, note: text)
            output(String(decoding: OrderedJSON.encode(line, escapeSlash: false), as: UTF8.self))
        }
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
