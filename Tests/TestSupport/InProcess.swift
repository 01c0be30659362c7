import MockHTTP

extension HTTPResponder {
    /// The in-process path: a request handed to the responder as the server hands it, without a
    /// socket, for what the app decides from the caller (its address, its headers) rather than
    /// from the bytes on the wire.
    public func respond(_ method: String, _ target: String, headers: [(String, String)] = [], body: String = "",
                        from host: String = "127.0.0.1") -> Response {
        respond(to: Request(method: method, target: target, headers: HTTPHeaders(headers), body: Array(body.utf8),
                            peer: PeerAddress(host: host, port: 50_000)))
    }
}
