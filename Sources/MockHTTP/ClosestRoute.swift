/// The route a mistyped path most likely meant, for the hint of a 404.
extension Router {
    /// `GET /api/threads` (of group `threads`) for `GET /api/thread/` and the like; nil when no
    /// route is close. `{name}` segments are filled from the path when the two have as many segments.
    /// Close means a quarter of the path's length in edits (at least 3), and one edit
    /// plus at most one per three letters the route spells out: a hint is given when it is likely
    /// right, and a long path is not "close" to a short route it shares only `/api/v2/` with.
    /// Paths over `RouteDistance.longestPath` bytes get no hint: nobody mistypes that much, and the
    /// comparison costs about the product of the lengths, on the event loop.
    public func closestRoute(method: String, path: String) -> (route: String, group: String)? {
        guard path.utf8.count <= RouteDistance.longestPath else { return nil }
        let wanted = Methods(named: method)
        let pieces = RouteDistance.segments(of: path)
        let tolerance = max(3, path.count / 4)
        var best: (cost: Int, route: Route, group: String)?
        for group in groups {
            for route in group.routes where route.pattern != "/" {
                let pattern = RouteDistance.segments(of: route.pattern)
                // Each segment one has and the other lacks costs at least `extraSegment`.
                let leastCost = abs(pieces.count - pattern.count) * RouteDistance.extraSegment
                guard leastCost <= min(tolerance, best?.cost ?? Int.max) else { continue }
                // A route the method does not reach is a worse guess than one it does.
                let cost = RouteDistance.between(pieces, pattern, tolerance: tolerance)
                    + (route.methods.takes(wanted) ? 0 : 1)
                if cost < best?.cost ?? Int.max { best = (cost, route, group.name) }
            }
        }
        guard let (cost, route, group) = best, cost <= tolerance,
              cost <= 1 + RouteDistance.spelledOut(route.pattern) / 3 else { return nil }
        let shownMethod = route.methods.takes(wanted) ? method : route.methods.names.first ?? method
        return ("\(shownMethod) \(RouteDistance.filled(route.pattern, from: pieces))", group)
    }
}

/// An edit distance between a request path and a route pattern, counted segment by segment:
/// a `{name}` segment takes any non-empty segment for free, an extra segment costs 2, a missing
/// one 2 or half its length (a base URL with or without `/api` is the usual mistake, a missing
/// word is not), and two segments compare by their letters, ignoring case.
enum RouteDistance {
    static let extraSegment = 2
    static let longestPath = 512

    static func segments(of path: String) -> [Substring] {
        Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
    }

    /// The letters of a pattern's literal segments: `/api/v2/channel/{id}` spells out 12.
    static func spelledOut(_ pattern: String) -> Int {
        segments(of: pattern).filter { !isParameter($0) }.reduce(0) { $0 + $1.utf8.count }
    }

    /// Exact up to `tolerance`; above it, any cost above it (nothing beyond is a hint).
    static func between(_ path: [Substring], _ pattern: [Substring], tolerance: Int) -> Int {
        let missing = pattern.map { isParameter($0) ? extraSegment : max(extraSegment, $0.count / 2) }
        return editDistance(path, pattern, extra: extraSegment, missing: missing) {
            substitution($0, $1, tolerance: tolerance)
        }
    }

    /// Levenshtein distance from `typed` to `expected`: an element of `typed` not in `expected`
    /// costs `extra`, the one at `expected[i]` missing from `typed` costs `missing[i]`.
    private static func editDistance<Element>(_ typed: [Element], _ expected: [Element], extra: Int, missing: [Int],
                                              substitution: (Element, Element) -> Int) -> Int {
        var previous = [0]
        for cost in missing { previous.append(previous.last! + cost) }
        for (row, x) in typed.enumerated() {
            var current = [(row + 1) * extra]
            for (column, y) in expected.enumerated() {
                let replace = previous[column] + substitution(x, y)
                current.append(min(replace, previous[column + 1] + extra, current[column] + missing[column]))
            }
            previous = current
        }
        return previous[expected.count]
    }

    private static func substitution(_ piece: Substring, _ expected: Substring, tolerance: Int) -> Int {
        if isParameter(expected) { return piece.isEmpty ? 1 : 0 }
        let (typed, served) = (Array(piece.lowercased().utf8), Array(expected.lowercased().utf8))
        // At least one edit per byte of difference in length: past the tolerance, no need to count.
        let lengthDifference = abs(typed.count - served.count)
        if lengthDifference > tolerance { return lengthDifference }
        return editDistance(typed, served, extra: 1, missing: Array(repeating: 1, count: served.count)) { $0 == $1 ? 0 : 1 }
    }

    private static func isParameter(_ segment: Substring) -> Bool {
        segment.count > 2 && segment.hasPrefix("{") && segment.hasSuffix("}")
    }

    /// The pattern with its `{name}` segments taken from the path, when they line up.
    static func filled(_ pattern: String, from path: [Substring]) -> String {
        let expected = segments(of: pattern)
        guard expected.count == path.count else { return pattern }
        return "/" + zip(expected, path).map { isParameter($0) && !$1.isEmpty ? $1 : $0 }.joined(separator: "/")
    }
}
