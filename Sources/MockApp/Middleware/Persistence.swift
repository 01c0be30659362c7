import MockHTTP
import MockKit

/// `--state FILE`: an answer goes out only once what its request changed is stored, and never
/// shows a change that was not (docs/admin.md#state-that-survives---state-file). A change that
/// cannot be stored is answered with the API's own server error, or, for a reset or a load, the
/// control surface's JSON error; a read that saw a change withdrawn since is answered again.
struct Persistence: Middleware {
    let stateLog: StateLog

    func respond(to request: RoutedRequest, next: (RoutedRequest) -> Response) -> Response {
        guard case .found = request.route else { return next(request) }
        return stateLog.onceStored({ next(request) }) {
            if let api = request.api { return api.injectedFault(status: 500) }
            return Response.json(500, ["error": "state_not_stored",
                                       "detail": "the state file \(stateLog.path) cannot store changes: "
                                           + (stateLog.failureReason ?? "a write failed")])
        }
    }
}
