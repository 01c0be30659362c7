import MockHTTP
import MockSupport

extension StubSet {
    /// For a request nothing answers: the first stub whose path takes it, with what the request
    /// lacked (`its query needs term=fall; the request has no term`). Such a 404 names the stub
    /// instead of guessing at a course route. So does a stub whose `path_regex` gave up on the path.
    func nearMiss(_ request: Request) -> (stub: Stub, missed: String)? {
        let stubs = all
        let candidates = stubs.filter { $0.route.path.match(request.path) != nil }
        guard !candidates.isEmpty else { return stubs.lazy.compactMap { Self.gaveUp($0, on: request.path) }.first }
        let query = FormDecoding.pairs(Array((request.query ?? "").utf8), malformed: .keepLiteral)
        let body = StubSet.lazyJSON(request.body)
        for stub in candidates {
            if let missed = stub.missedCondition(request, query: query, bodyJSON: body) { return (stub, missed) }
        }
        return nil
    }

    private static func gaveUp(_ stub: Stub, on path: String) -> (stub: Stub, missed: String)? {
        guard case let .expression(expression) = stub.route.path, case .gaveUp = expression.match(path) else { return nil }
        return (stub, "its path_regex gave up on this path after too much backtracking (a repetition of a repetition, "
                    + "such as (a+)+, does that; write it without)")
    }
}

extension Stub {
    /// The first condition of this stub the request does not meet, said for a person; nil when
    /// it meets them all.
    func missedCondition(_ request: Request, query pairs: [(String, String)], bodyJSON body: () -> JSONValue?) -> String? {
        if let method = route.method, method != request.method { return "it takes \(method), not \(request.method)" }
        // Said only on a miss: `match` asks this of every stub for every request.
        for condition in query {
            let value = FormDecoding.last(condition.name, in: pairs)
            guard value != condition.value else { continue }
            let needs = "its query needs \(condition.name)=\(condition.value)"
            return value.map { "\(needs), not \(condition.name)=\($0)" } ?? "\(needs); the request has no \(condition.name)"
        }
        for condition in headers {
            let value = request.headers[condition.name]
            guard value != condition.value else { continue }
            let needs = "it needs the header \(condition.name): \(condition.value)"
            return value.map { "\(needs), not \($0)" } ?? "\(needs); the request has none"
        }
        if let bodyContains, !bodyContains.occurs(in: request.body) {
            return "its body must contain \(String(decoding: bodyContains.pattern, as: UTF8.self))"
        }
        if let bodyJSON, let missed = StubBodyJSON.firstMissed(bodyJSON, in: body()) {
            let wanted = JSONValue.object(JSONObject([missed])).encoded(escapeSlash: false)
            let needs = "its JSON body needs \(String(decoding: wanted, as: UTF8.self))"
            guard let object = body()?.objectValue else { return "\(needs); the body is not a JSON object" }
            guard let value = object[missed.key] else { return "\(needs); the body has no \(missed.key)" }
            return "\(needs), not \(String(decoding: value.encoded(escapeSlash: false), as: UTF8.self))"
        }
        return nil
    }

    /// `GET /api/v2/courses/{course_id}/announcements (Seed/stubs/courses.json:3:5)`.
    var described: String { "\(route.text) (\(source))" }
}
