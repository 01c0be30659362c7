import Foundation

/// What the server calls for every complete request. Runs on an event-loop thread, so it must
/// not block: a delay is expressed with `Response.delay`, never by sleeping.
public protocol HTTPResponder: Sendable {
    func respond(to request: Request) -> Response
    /// Called once the answer is written to the connection's buffer (log, journal).
    func didRespond(_ exchange: Exchange)
    /// Called when a connection opened with a TLS handshake, which the server closed at once.
    func didRefuseTLS(_ attempt: TLSAttempt)
}

extension HTTPResponder {
    public func didRefuseTLS(_ attempt: TLSAttempt) {}
}

/// One finished request and its answer, for logs and the journal.
public struct Exchange: Sendable {
    public var request: Request
    public var response: Response
    public var durationMilliseconds: Double
    /// Bytes of the response as written, head included.
    public var responseBytes: Int
}
