import MockHTTP

extension StubSet {
    /// For a request nothing answers: the first stub whose path takes it, with what the request
    /// lacked (`its query needs term=fall; the request has no term`). Such a 404 names the stub
    /// instead of guessing at a course route.
    func nearMiss(_ request: Request) -> (stub: Stub, missed: String)? {
        let candidates = all.filter { $0.route.path.match(request.path) != nil }
        guard !candidates.isEmpty else { return nil }
        let query = FormDecoding.pairs(Array((request.query ?? "").utf8), malformed: .keepLiteral)
        for stub in candidates {
            if let missed = stub.missedCondition(request, query: query) { return (stub, missed) }
        }
        return nil
    }
}

extension Stub {
    /// The first condition of this stub the request does not meet, said for a person; nil when
    /// it meets them all.
    func missedCondition(_ request: Request, query pairs: [(String, String)]) -> String? {
        if let method = route.method, method != request.method { return "it takes \(method), not \(request.method)" }
        for condition in query {
            let needs = "its query needs \(condition.name)=\(condition.value)"
            guard let value = FormDecoding.last(condition.name, in: pairs) else { return "\(needs); the request has no \(condition.name)" }
            if value != condition.value { return "\(needs), not \(condition.name)=\(value)" }
        }
        for condition in headers {
            let needs = "it needs the header \(condition.name): \(condition.value)"
            guard let value = request.headers[condition.name] else { return "\(needs); the request has none" }
            if value != condition.value { return "\(needs), not \(value)" }
        }
        if let bodyContains, !bodyContains.occurs(in: request.body) {
            return "its body must contain \(String(decoding: bodyContains.pattern, as: UTF8.self))"
        }
        return nil
    }

    /// `GET /api/v2/courses/{course_id}/announcements (Seed/stubs/courses.json:3:5)`.
    var described: String { "\(route.text) (\(source))" }
}
