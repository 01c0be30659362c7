import Foundation

/// What the server calls for every complete request. Runs on an event-loop thread, so it must
/// not block: a delay is expressed with `Response.delay`, and waiting for other work with
/// `Response.pending`, never by sleeping.
public protocol HTTPResponder: Sendable {
    func respond(to request: Request) -> Response
    /// Called once the answer is written to the connection's buffer (log, journal).
    func didRespond(_ exchange: Exchange)
    /// Called when a connection opened with a TLS handshake, which the server closed at once.
    func didRefuseTLS(_ attempt: TLSAttempt)
    /// The answer to a request the HTTP layer refuses after reading its head (a body over the
    /// limit, `status` 413, or over the memory budget, 503, to which the HTTP layer adds
    /// `Retry-After`); nil for the HTTP layer's plain-text answer. The body is not read.
    func refusal(of request: Request, status: Int, reason: String) -> Response?
}

extension HTTPResponder {
    public func didRefuseTLS(_ attempt: TLSAttempt) {}
    public func refusal(of request: Request, status: Int, reason: String) -> Response? { nil }
}

/// One finished request and its answer, for logs and the journal; or one the stop cut off.
public struct Exchange: Sendable {
    public var request: Request
    public var response: Response
    public var durationMilliseconds: Double
    /// Bytes of the response as written, head included.
    public var responseBytes: Int
    /// The server stopped before the exchange was over (docs/admin.md#stopping); `response` says why.
    public var cutOff = false
}

extension Exchange {
    /// The status the client saw; nil when the connection was reset or closed instead.
    public var sentStatus: Int? {
        cutOff || response.connectionFault == .reset || response.connectionFault == .close ? nil : response.status
    }
}
