import MockHTTP
import MockKit

/// Injected errors and latency (docs/admin.md#faults-and-latency): a course API's request may get
/// the API's own fault answer instead of reaching it, and its answer, like any 405, may be held back.
struct FaultsAndLatency: Middleware {
    /// Set through `/_mock/faults`; `--latency` applies where they set none.
    let faults: Locked<Faults>
    let latency: ClosedRange<Double>?

    func respond(to request: RoutedRequest, next: (RoutedRequest) -> Response) -> Response {
        switch request.route {
        case .found:
            guard let api = request.api else { return next(request) }
            let active = faults.withLock { $0 }
            var response: Response
            if active.applies(to: api.name), let status = active.drawError() {
                response = api.injectedFault(status: status)
                response.explanation = "injected fault: \(status) set through /_mock/faults (DELETE /_mock/faults clears it)"
                response.routeGroup = api.name
            } else {
                response = next(request)
            }
            response.delay = delay(for: api.name, faults: active)
            return response
        case let .methodNotAllowed(group, _):
            var response = next(request)
            response.delay = delay(for: group.name, faults: faults.withLock { $0 })
            return response
        case .preflight, .notFound:
            return next(request)
        }
    }

    private func delay(for api: String, faults active: Faults) -> Double {
        if let latency = active.latency, active.applies(to: api) { return Faults.delay(in: latency) }
        return latency.map(Faults.delay) ?? 0
    }
}
