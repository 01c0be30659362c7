import MockHTTP
import MockKit

/// A request inside the app, with where the router sends it.
struct RoutedRequest {
    var request: Request
    let route: RouteMatch
    /// The course API whose table has the path; nil for the control surface, unknown paths and stubs.
    let api: (any MockAPI)?
    /// The stub that answers instead of the route.
    var stub: StubMatch? = nil
}

extension RouteMatch {
    var group: RouteGroup? {
        switch self {
        case let .found(group, _, _), let .methodNotAllowed(group, _), let .preflight(group, _): group
        case .notFound: nil
        }
    }
}

/// One concern of the app around every answer: small and synchronous, so the chain runs on the
/// event-loop thread like the handlers. An answer that must wait is `Response.pending`; `next` may
/// then be called again, on the loop's thread.
protocol Middleware: Sendable {
    func respond(to request: RoutedRequest, next: @escaping (RoutedRequest) -> Response) -> Response
    func didRespond(_ exchange: Exchange)
}

extension Middleware {
    func respond(to request: RoutedRequest, next: @escaping (RoutedRequest) -> Response) -> Response {
        next(request)
    }

    func didRespond(_ exchange: Exchange) {}
}
