import Foundation

/// Serialized writes of whole lines to standard output, shared by the log and other console lines.
public final class Console: @unchecked Sendable {
    public static let standard = Console()
    private let lock = NSLock()

    public func write(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

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
            let time = Self.timeOfDay(request.receivedAt)
            let line = "\(time) \(request.peer.host) \(request.method) \(request.target) \(response.status) "
                + "\(exchange.responseBytes)B \(milliseconds)ms \(response.api ?? "-")"
            output(response.explanation.map { "\(line) (\($0))" } ?? line)
        case .json:
            let line = LogLine(at: ISO8601.format(request.receivedAt), client: request.peer.description,
                               method: request.method, path: request.target, status: response.status,
                               bytes: exchange.responseBytes, ms: milliseconds, api: response.api,
                               reason: response.explanation)
            output(String(decoding: OrderedJSON.encode(line, escapeSlash: false), as: UTF8.self))
        }
    }

    /// A console line about a connection rather than a request (an https client on this port).
    public func note(_ text: String, from peer: PeerAddress, at date: Date) {
        switch format {
        case .text:
            output("\(Self.timeOfDay(date)) \(peer.host) \(text)")
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
        var status: Int
        var bytes: Int
        var ms: Double
        var api: String?
        var reason: String?
    }

    /// `HH:MM:SS.mmm` in the machine's local time, what a person at the console reads.
    static func timeOfDay(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let millis = Int(date.timeIntervalSince1970 * 1000) % 1000
        return "\(pad(Int(parts.tm_hour))):\(pad(Int(parts.tm_min))):\(pad(Int(parts.tm_sec))).\(pad(millis, 3))"
    }
}

/// ISO-8601 time stamps in UTC with milliseconds: `2026-11-21T23:59:01.123Z`.
public enum ISO8601 {
    public static func format(_ date: Date) -> String {
        format(milliseconds: Int((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// For times kept as whole milliseconds since 1970, so sums of them print exactly.
    public static func format(milliseconds: Int) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let time = CivilTime(unixSeconds: seconds)
        return "\(pad(time.year, 4))-\(pad(time.month))-\(pad(time.day))T\(pad(time.hour)):\(pad(time.minute))"
            + ":\(pad(time.second)).\(pad(milliseconds - seconds * 1000, 3))Z"
    }
}
