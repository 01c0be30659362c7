import MockHTTP
import MockKit

/// Injected faults and latency (docs/admin.md#faults-and-latency) on a course API's or a stub's
/// request; any 405 may be held back too.
struct FaultsAndLatency: Middleware {
    /// Set through `/_mock/faults`; `--latency` applies where they set none.
    let faults: Locked<Faults>
    let latency: ClosedRange<Double>?

    func respond(to request: RoutedRequest, next: @escaping (RoutedRequest) -> Response) -> Response {
        if request.stub != nil {
            return serve(request, as: StubSet.name, injectedFault: StubSet.injectedFault, next: next)
        }
        switch request.route {
        case .found:
            guard let api = request.api else { return next(request) }
            return serve(request, as: api.name, injectedFault: api.injectedFault, next: next)
        case let .methodNotAllowed(group, _):
            var response = next(request)
            let (method, path) = (request.request.method, request.request.path)
            response.delay += delay(faults.withLock { $0.rule(for: group.name, method: method, path: path) })
            return response
        case .preflight, .notFound:
            return next(request)
        }
    }

    /// A reset or a close stops the request before the handler sees it, so nothing changes; a
    /// truncated or slow answer is the handler's own, changes made.
    private func serve(_ request: RoutedRequest, as name: String, injectedFault: (Int) -> Response,
                       next: @escaping (RoutedRequest) -> Response) -> Response {
        let drawn = faults.withLock { $0.draw(for: name, method: request.request.method, path: request.request.path) }
        let rule = drawn?.rule
        let draw = drawn?.draw ?? FaultRule.Draw()
        var response: Response
        if let status = draw.errorStatus {
            response = injectedFault(status)
            response.routeGroup = name
        } else if draw.connectionFault == .reset || draw.connectionFault == .close {
            response = Response(status: 0)
            response.routeGroup = name
        } else {
            response = next(request)
        }
        response.connectionFault = draw.connectionFault
        if let note = draw.note {
            response.explanation = "injected fault: \(note), set through /_mock/faults (DELETE /_mock/faults clears it)"
        }
        response.delay += delay(rule)
        return response
    }

    /// The rule's latency where it sets one, else `--latency`.
    private func delay(_ rule: FaultRule?) -> Double {
        if let latency = rule?.latency { return Faults.delay(in: latency) }
        return latency.map(Faults.delay) ?? 0
    }
}
