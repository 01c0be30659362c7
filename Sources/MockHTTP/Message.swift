import Foundation

/// Header fields in arrival order; names compare case-insensitively.
public struct HTTPHeaders: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field of that name with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// The first value of the field, if present.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}

extension String {
    /// ASCII case-insensitive equality, without allocating.
    @inlinable
    public func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            if (x | 0x20) != (y | 0x20) || !((x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A) { return false }
        }
        return true
    }
}

/// The peer of a connection, as a printable address.
public struct PeerAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// 127.0.0.0/8, ::1, and IPv4-mapped loopback on a dual-stack socket.
    public var isLoopback: Bool {
        host == "::1" || host.hasPrefix("127.") || host.hasPrefix("::ffff:127.")
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// One parsed request, body fully read.
public struct Request: Sendable {
    public var method: String
    /// The request target exactly as sent (path and query).
    public var target: String
    /// The path part of the target, not percent-decoded.
    public var path: String
    /// The query string without `?`; `nil` when the target has no `?`.
    public var query: String?
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var peer: PeerAddress
    /// Values of `{name}` segments of the matched route.
    public var pathParameters: [String: String] = [:]
    public var receivedAt: Date

    public init(method: String, target: String, headers: HTTPHeaders = HTTPHeaders(),
                body: [UInt8] = [], peer: PeerAddress = PeerAddress(host: "127.0.0.1", port: 0),
                receivedAt: Date = Date()) {
        self.method = method
        self.target = target
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        } else {
            path = target
            query = nil
        }
        self.headers = headers
        self.body = body
        self.peer = peer
        self.receivedAt = receivedAt
    }

    public subscript(parameter name: String) -> String? { pathParameters[name] }

    /// The media type of `Content-Type`, lower-cased, without parameters.
    public var mediaType: String? {
        guard let value = headers["Content-Type"] else { return nil }
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }
}

/// One response; the server adds `Date`, `Content-Length` and `Connection`.
public struct Response: Sendable {
    public var status: Int
    /// A reason phrase other than the standard one (`409 Conflict User Exists`).
    public var reason: String?
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Seconds to hold the answer back (simulated network latency); the loop keeps serving others.
    public var delay: Double = 0
    /// Set when the answer must wait for work off the loop; the loop keeps serving others.
    public var pending: PendingAnswer?
    /// Break the answer on the wire instead of sending it whole (injected network faults).
    public var connectionFault: ConnectionFault?
    /// What the responder keeps about this answer for its own records, given back in `didRespond`; the HTTP
    /// layer sends none of it. An object, so that reading it back is a plain class cast.
    public var attachment: (any AnyObject & Sendable)?

    public init(status: Int = 200, reason: String? = nil, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    public init(status: Int = 200, contentType: String, body: [UInt8]) {
        self.init(status: status, headers: HTTPHeaders([("Content-Type", contentType)]), body: body)
    }

    public static func text(_ status: Int, _ text: String) -> Response {
        Response(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    public static func html(_ html: String) -> Response {
        Response(status: 200, contentType: "text/html; charset=utf-8", body: Array(html.utf8))
    }

    public static let jsonType = "application/json; charset=utf-8"

    /// A JSON answer with `Content-Type: application/json; charset=utf-8`.
    public static func json(_ status: Int = 200, _ body: [UInt8]) -> Response {
        Response(status: status, contentType: jsonType, body: body)
    }

    public var reasonPhrase: String { reason ?? Response.standardReason(status) }

    public static func standardReason(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 417: return "Expectation Failed"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Status \(status)"
        }
    }
}
