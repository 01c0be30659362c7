import MockHTTP

/// A course API's typed error. Each course shaped its errors its own way (its page in docs/apis/),
/// so each API has one enum of them; the kit only asks how each is answered.
public protocol APIError: Error {
    /// The answer to this error.
    var response: Response { get }
    /// Why it happened, in one line for the console and the journal, never for the client
    /// (docs/admin.md#why-a-request-failed; each API's page lists its reasons).
    func explanation(for request: Request) -> String
    /// The answer to a fault injected with this status (docs/admin.md#faults-and-latency).
    static func injectedFault(status: Int) -> Response
    /// The answer to a method the path does not serve (the `Allow` header is added).
    static func methodNotAllowed(_ request: Request) -> Response
    /// The answer to a body over `--max-body` (413; the body is never read). `reason` says the limit.
    static func bodyTooLarge(_ reason: String) -> Response
}

/// An error whose 405 is one of its cases, the same answer whatever the method.
public protocol MethodNotAllowedCase: APIError {
    static var methodNotAllowed: Self { get }
}

extension MethodNotAllowedCase {
    public static func methodNotAllowed(_ request: Request) -> Response {
        methodNotAllowed.response
    }
}

/// Turns a throwing endpoint into a route handler: a thrown error becomes its API's answer.
@inlinable
public func endpoint<Failure: APIError>(_ body: @escaping @Sendable (Request) throws(Failure) -> Response) -> Handler {
    { request in
        do throws(Failure) { return try body(request) } catch {
            var response = error.response
            response.explanation = error.explanation(for: request)
            return response
        }
    }
}

/// An error answered with an HTTP status of its own, whose body an injected fault sends with the
/// status asked for (every course but OTP, which answers everything with 200).
public protocol HTTPStatusError: APIError {
    var status: Int { get }
    /// The error's body with the given status.
    func response(status: Int) -> Response
    /// The error injected faults answer with.
    static var serviceUnavailable: Self { get }
}

extension HTTPStatusError {
    public var response: Response { response(status: status) }

    public static func injectedFault(status: Int) -> Response {
        serviceUnavailable.response(status: status)
    }
}
