import MockHTTP

/// Every course API answers any origin, and answers preflights for the methods its path takes;
/// the control surface allows no cross-origin use (docs/admin.md#who-may-call-it).
struct CORS: Middleware {
    func respond(to request: RoutedRequest, next: @escaping (RoutedRequest) -> Response) -> Response {
        var response: Response
        if case let .preflight(group, allowed) = request.route {
            response = group.name == AdminAPI.name ? AdminAPI.preflightRefused : Self.preflight(allowed)
            response.routeGroup = group.name
        } else {
            response = next(request)
        }
        if response.routeGroup != AdminAPI.name {
            response.headers.add("Access-Control-Allow-Origin", "*")
        }
        return response
    }

    static func preflight(_ allowed: Methods) -> Response {
        Response(status: 204, headers: HTTPHeaders([
            ("Access-Control-Allow-Methods", allowed.headerValue),
            ("Access-Control-Allow-Headers", "Authorization, Content-Type, x-authtoken"),
            ("Access-Control-Max-Age", "600"),
        ]))
    }
}
