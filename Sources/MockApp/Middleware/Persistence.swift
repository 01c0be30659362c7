import MockHTTP

/// `--state FILE`: once a course API has handled a request, its state is written before the answer
/// goes out (docs/admin.md#state-that-survives---state-file). The file decides what changed.
struct Persistence: Middleware {
    let stateFile: StateFile

    func respond(to request: RoutedRequest, next: (RoutedRequest) -> Response) -> Response {
        let response = next(request)
        if case .found = request.route, let api = request.api {
            stateFile.persist(api)
        }
        return response
    }
}
