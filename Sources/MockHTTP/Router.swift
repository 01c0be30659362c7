/// HTTP methods as a set, listed in the canonical order of `Allow` and CORS headers.
public struct Methods: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let get = Methods(rawValue: 1 << 0)
    public static let head = Methods(rawValue: 1 << 1)
    public static let post = Methods(rawValue: 1 << 2)
    public static let put = Methods(rawValue: 1 << 3)
    public static let patch = Methods(rawValue: 1 << 4)
    public static let delete = Methods(rawValue: 1 << 5)
    public static let options = Methods(rawValue: 1 << 6)
    /// A route that takes whatever method arrives (CGI scripts never looked).
    public static let any = Methods(rawValue: 0xFF)

    private static let canonical: [(Methods, String)] = [
        (.get, "GET"), (.head, "HEAD"), (.post, "POST"), (.put, "PUT"),
        (.patch, "PATCH"), (.delete, "DELETE"), (.options, "OPTIONS"),
    ]

    /// The set bit of a method name; empty for methods outside the canonical seven.
    public init(named name: String) {
        self = Self.canonical.first { $0.1 == name }?.0 ?? []
    }

    /// The names of the methods in the set, in canonical order.
    var names: [String] { Self.canonical.filter { contains($0.0) }.map(\.1) }

    /// `GET, HEAD, OPTIONS` and so on, in canonical order.
    public var headerValue: String { names.joined(separator: ", ") }

    /// Whether a route of these methods takes a request of `method` (one bit, or none for others).
    func takes(_ method: Methods) -> Bool {
        self == .any || contains(method) && !method.isEmpty
    }
}

/// How an API's paths are compared with the request path.
public struct PathMatching: Sendable {
    /// `/LOGIN` matches `/login`.
    public var caseInsensitive = false
    /// `/workspace/` matches `/workspace`.
    public var toleratesTrailingSlash = false
    /// `%7Ecs458` matches `~cs458`: the path is percent-decoded before matching.
    public var percentDecoded = false
    /// The group's own reading of a path that no route of any group matches as written (the path
    /// as the group compares it): the route that serves it, or nil. Asked only after every group
    /// has looked, so it never takes a path from another group.
    public var resolvesUnmatched: (@Sendable (_ path: String) -> Route?)?

    public init(caseInsensitive: Bool = false, toleratesTrailingSlash: Bool = false, percentDecoded: Bool = false,
                resolvesUnmatched: (@Sendable (_ path: String) -> Route?)? = nil) {
        self.caseInsensitive = caseInsensitive
        self.toleratesTrailingSlash = toleratesTrailingSlash
        self.percentDecoded = percentDecoded
        self.resolvesUnmatched = resolvesUnmatched
    }
}

public typealias Handler = @Sendable (Request) -> Response

/// One endpoint: methods, a path pattern with `{name}` segments, and its handler.
public struct Route: Sendable {
    public let methods: Methods
    public let path: PathTemplate
    public let handler: Handler

    public var pattern: String { path.text }

    public init(_ methods: Methods, _ pattern: String, _ handler: @escaping Handler) {
        self.methods = methods
        path = PathTemplate(pattern)
        self.handler = handler
    }

    /// What is wrong with the pattern itself: a `{` or `}` outside a whole `{name}` segment, or a name used twice.
    fileprivate var patternProblem: String? {
        var names: Set<String> = []
        for piece in pattern.split(separator: "/", omittingEmptySubsequences: false) {
            let braces = piece.filter { $0 == "{" || $0 == "}" }
            guard !braces.isEmpty else { continue }
            let name = piece.dropFirst().dropLast()
            guard braces == "{}", piece.hasPrefix("{"), piece.hasSuffix("}"), !name.isEmpty else {
                return "has an unbalanced { or } in \(piece)"
            }
            guard names.insert(String(name)).inserted else { return "names {\(name)} twice" }
        }
        return nil
    }
}

/// A path pattern whose `{name}` segments each match one non-empty segment, compared with a path
/// segment by segment: a route's, a stub's or a fault rule's.
public struct PathTemplate: Sendable {
    public let text: String
    fileprivate let segments: [Segment]

    fileprivate enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    public init(_ text: String) {
        self.text = text
        segments = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { piece in
            piece.count > 2 && piece.hasPrefix("{") && piece.hasSuffix("}")
                ? .parameter(String(piece.dropFirst().dropLast())) : .literal(String(piece))
        }
    }

    public var parameterNames: [String] {
        segments.compactMap { if case let .parameter(name) = $0 { return name } else { return nil } }
    }

    /// No `{name}` segment: a route table finds it by a dictionary lookup instead of a scan.
    fileprivate var isLiteral: Bool { parameterNames.isEmpty }

    /// The literal segments, nil for each parameter: two patterns of one shape differ only in names.
    fileprivate var shape: [String?] {
        segments.map { if case let .literal(text) = $0 { text } else { nil } }
    }

    /// Whether some path matches both patterns.
    public func overlaps(_ other: PathTemplate, ignoringCase: Bool) -> Bool {
        segments.count == other.segments.count && zip(segments, other.segments).allSatisfy { pair in
            guard case let (.literal(one), .literal(two)) = pair else { return true }
            return ignoringCase ? one.lowercased() == two.lowercased() : one == two
        }
    }

    /// The values of the `{name}` segments of a path as sent (not decoded), or nil when it does not match.
    public func match(_ path: String) -> [String: String]? {
        guard path.hasPrefix("/") else { return nil }
        let pieces = Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        return match(pieces, pieces)
    }

    fileprivate func match(_ path: [Substring], _ original: [Substring]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case let .literal(text):
                guard path[index] == text else { return nil }
            case let .parameter(name):
                guard !path[index].isEmpty else { return nil }
                parameters[name] = String(original[index])
            }
        }
        return parameters
    }
}

/// The routes of one part of the app (for the app, one API), with its path rules and its own `405` body.
public struct RouteGroup: Sendable {
    /// The group's name, for the responder and for route table errors.
    public let name: String
    public let matching: PathMatching
    public let routes: [Route]
    /// This API's answer to a known path with a method it does not serve (the `Allow` header is added).
    public let methodNotAllowed: @Sendable (Request) -> Response
    /// Literal routes by their normalized path, so most requests skip the pattern scan.
    private let literal: [String: [Int]]
    /// The routes with `{name}` segments by their number of segments, in table order.
    private let patterned: [Int: [Route]]

    public init(name: String, matching: PathMatching = PathMatching(), routes: [Route],
                methodNotAllowed: @escaping @Sendable (Request) -> Response) {
        self.name = name
        self.matching = matching
        self.methodNotAllowed = methodNotAllowed
        let routes = routes.map { route in
            matching.caseInsensitive ? Route(route.methods, route.pattern.lowercased(), route.handler) : route
        }
        self.routes = routes
        literal = Dictionary(grouping: routes.indices.filter { routes[$0].path.isLiteral }, by: { routes[$0].pattern })
        patterned = Dictionary(grouping: routes.filter { !$0.path.isLiteral }, by: \.path.segments.count)
    }

    fileprivate func checkRoutes() throws(RouteTableError) {
        for (index, route) in routes.enumerated() {
            if let problem = route.patternProblem {
                throw RouteTableError(description: "\(name): route \(route.pattern) \(problem)")
            }
            for earlier in routes[..<index] where earlier.path.shape == route.path.shape {
                let methods = earlier.methods.intersection(route.methods)
                if !methods.isEmpty {
                    throw RouteTableError(description: "\(name): \(methods.headerValue) \(route.pattern) is in the route table twice")
                }
            }
        }
    }

    fileprivate func checkNoOverlap(with other: RouteGroup) throws(RouteTableError) {
        let ignoringCase = matching.caseInsensitive || other.matching.caseInsensitive
        for route in routes {
            for claimed in other.routes where route.path.overlaps(claimed.path, ignoringCase: ignoringCase) {
                throw RouteTableError(description: "\(name) and \(other.name) both claim \(route.pattern)"
                    + (route.pattern == claimed.pattern ? "" : " and \(claimed.pattern)")
                    + " (\(route.methods.headerValue) and \(claimed.methods.headerValue)); requests would reach \(name) only")
            }
        }
    }

    /// The path as this group compares it, or nil when it cannot match anything here.
    fileprivate func normalize(_ rawPath: String) -> (compared: String, original: String)? {
        var path = rawPath
        if matching.percentDecoded {
            guard let decoded = FormDecoding.percentDecode(path, plusAsSpace: false) else { return nil }
            path = decoded
        }
        if matching.toleratesTrailingSlash && path.utf8.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return (matching.caseInsensitive ? path.lowercased() : path, path)
    }

    /// The route the group's own rule gives a path that no group matched.
    fileprivate func resolveUnmatched(_ rawPath: String) -> Route? {
        guard let resolve = matching.resolvesUnmatched, let (compared, _) = normalize(rawPath) else { return nil }
        return resolve(compared)
    }

    /// Routes whose pattern matches the path, with their parameters.
    fileprivate func candidates(for rawPath: String) -> [(Route, [String: String])] {
        guard let (compared, original) = normalize(rawPath) else { return [] }
        var found: [(Route, [String: String])] = []
        if let indexes = literal[compared] {
            found = indexes.map { (routes[$0], [:]) }
        }
        // A path has as many segments as slashes (the text before the first one is dropped).
        let segmentCount = compared.utf8.reduce(0) { $1 == UInt8(ascii: "/") ? $0 + 1 : $0 }
        guard let sameLength = patterned[segmentCount] else { return found }
        let pieces = RouteDistance.segments(of: compared)
        let originalPieces = matching.caseInsensitive ? RouteDistance.segments(of: original) : pieces
        for route in sameLength {
            if let parameters = route.path.match(pieces, originalPieces) { found.append((route, parameters)) }
        }
        return found
    }
}

public enum RouteMatch {
    case found(RouteGroup, Handler, parameters: [String: String])
    /// The path is known to this group, the method is not: answer 405 with these methods in `Allow`.
    case methodNotAllowed(RouteGroup, allowed: Methods)
    /// `OPTIONS` on a known path: a CORS preflight for these methods.
    case preflight(RouteGroup, allowed: Methods)
    case notFound
}

/// A route table that cannot work as written: start-up stops with this message.
public struct RouteTableError: Error, CustomStringConvertible, Equatable {
    public let description: String
}

/// Routes a request to the first group that knows its path.
public struct Router: Sendable {
    public let groups: [RouteGroup]

    /// Checks the tables as they are built, as Go's ServeMux does: a malformed pattern, a route
    /// written twice in a group, a path two groups claim (the second would never be asked), and
    /// two groups of one name (answers are told apart by it).
    public init(groups: [RouteGroup]) throws(RouteTableError) {
        for group in groups {
            try group.checkRoutes()
        }
        for (index, first) in groups.enumerated() {
            for second in groups[(index + 1)...] {
                try first.checkNoOverlap(with: second)
            }
        }
        for (index, group) in groups.enumerated() where groups[..<index].contains(where: { $0.name == group.name }) {
            throw RouteTableError(description: "two route groups are named \(group.name)")
        }
        self.groups = groups
    }

    public func match(method: String, path: String) -> RouteMatch {
        for group in groups {
            let candidates = group.candidates(for: path)
            guard !candidates.isEmpty else { continue }
            return Self.choose(among: candidates, of: group, for: method)
        }
        for group in groups {
            guard let route = group.resolveUnmatched(path) else { continue }
            return Self.choose(among: [(route, [:])], of: group, for: method)
        }
        return .notFound
    }

    private static func choose(among candidates: [(Route, [String: String])], of group: RouteGroup, for method: String) -> RouteMatch {
        let wanted = Methods(named: method)
        for (route, parameters) in candidates where route.methods.takes(wanted) {
            if method == "OPTIONS" && route.methods == .any { break }
            return .found(group, route.handler, parameters: parameters)
        }
        let allowed = candidates.reduce(Methods()) { $0.union($1.0.methods) }.union(.options)
        return method == "OPTIONS" ? .preflight(group, allowed: allowed) : .methodNotAllowed(group, allowed: allowed)
    }
}
