import MockHTTP
import MockKit

/// `--state FILE` (docs/admin.md#state-that-survives---state-file): an answer goes out only once
/// what its request changed is stored, waiting off the event loop (`Response.pending`). A change
/// not stored gets the API's own server error (the control surface's for a reset or a load); a
/// read that saw a change withdrawn since is answered again.
struct Persistence: Middleware {
    let stateLog: StateLog

    func respond(to request: RoutedRequest, next: @escaping (RoutedRequest) -> Response) -> Response {
        guard case .found = request.route else { return next(request) }
        return answer(request, next: next, tries: 3)
    }

    private func answer(_ request: RoutedRequest, next: @escaping (RoutedRequest) -> Response, tries: Int) -> Response {
        let (response, awaits, wrote) = stateLog.answering { next(request) }
        guard let awaits else { return response }
        let pending = PendingAnswer()
        var held = response
        held.pending = pending
        stateLog.whenSettled(awaits) { stored in
            if stored {
                pending.complete { $0 }
            } else if wrote || tries == 1 {
                pending.complete { held in decorated(refusal(request), like: held, answered: response) }
            } else {
                pending.complete { held in decorated(answer(request, next: next, tries: tries - 1), like: held, answered: response) }
            }
        }
        return held
    }

    private func refusal(_ request: RoutedRequest) -> Response {
        if let api = request.api { return api.injectedFault(status: 500) }
        return Response.json(500, ["error": "state_not_stored",
                                   "detail": "the state file \(stateLog.path) cannot store changes: "
                                       + (stateLog.failureReason ?? "a write failed")])
    }

    /// The answer that replaces the handler's, with what the middlewares around this one added to
    /// the held answer (CORS headers, a fault's delay or broken connection).
    private func decorated(_ replacement: Response, like held: Response, answered: Response) -> Response {
        var result = replacement
        for field in held.headers.fields where !answered.headers.fields.contains(where: { $0 == field }) {
            result.headers.add(field.name, field.value)
        }
        result.delay = held.delay
        result.connectionFault = held.connectionFault
        result.routeGroup = held.routeGroup
        return result
    }
}
