import Foundation
import MockHTTP
import MockKit
import MockSupport

/// Settings of the whole app that come from the command line.
public struct AppSettings: Sendable {
    /// `--admin-token`: required of every `/_mock/…` caller when set.
    public var adminToken: String?
    /// False with `--admin-require-token`: a loopback peer (perhaps a proxy) gets no access by itself.
    public var trustsLoopback = true
    public var log: RequestLog?
    /// `--journal`: requests kept for `/_mock/requests` (0 turns the journal off).
    public var journalCapacity = 1000
    /// `--latency`, in milliseconds.
    public var latency: ClosedRange<Double>?
    /// `--state`: where every change is stored before it is acknowledged.
    public var stateLog: StateLog?
    /// What the index page and the https hint offer as this server's address (`--public-url`, containers).
    public var addresses = ServerAddresses()
    /// The route tables, without state, of the APIs `--only` left out (`APICatalog.routesLeftOut`):
    /// a 404 on their paths names the API instead of guessing at a served route.
    public var routesNotServed: [RouteGroup] = []
    /// The clock `/_mock/clock` moves and `POST /_mock/reset` restarts: the one the APIs were given.
    public var clock = ServerClock()
    /// Where the APIs mint random values; a reset starts an API's stream again.
    public var randomness = Randomness()

    public init(adminToken: String? = nil, log: RequestLog? = nil) {
        self.adminToken = adminToken
        self.log = log
    }
}

/// The responder behind the server: the control surface, then the stubs, then every course API at
/// its own paths, through a chain of middlewares (CORS, faults and latency, `--state`, journal and
/// log), and the common 404.
public final class MockApp: HTTPResponder {
    public let apis: [any MockAPI]
    private let apisByName: [String: any MockAPI]
    private let router: Router
    /// The router with the routes of APIs not served too, for the 404's hint.
    private let hintRouter: Router
    private let notServed: Set<String>
    private let middlewares: [any Middleware]
    let journal: Journal
    private let log: RequestLog?
    private let addresses: ServerAddresses
    let faults = Locked(Faults())
    let startedAt = Date()
    public let stubs: StubSet

    /// `stubs`: the stubs folder's (`StubSet.load`); by default only stubs added at run time.
    /// Fails when the route tables cannot work as written (two APIs claiming one path, …).
    public init(apis: [any MockAPI], settings: AppSettings = AppSettings(), stubs: StubSet? = nil) throws(RouteTableError) {
        self.apis = apis
        self.stubs = stubs ?? StubSet(apis: apis)
        journal = Journal(capacity: settings.journalCapacity)
        log = settings.log
        addresses = settings.addresses
        let admin = AdminAPI(apis: apis, settings: settings, journal: journal, faults: faults, stubs: self.stubs,
                             startedAt: startedAt)
        router = try Router(groups: [admin.routes] + apis.map(\.routes))
        // The full catalog's tables never clash (they are served together without --only).
        hintRouter = (try? Router(groups: router.groups + settings.routesNotServed)) ?? router
        notServed = Set(settings.routesNotServed.map(\.name))
        // The router has made sure that the names differ.
        apisByName = Dictionary(uniqueKeysWithValues: apis.map { ($0.name, $0) })
        var middlewares: [any Middleware] = [CORS(), FaultsAndLatency(faults: faults, latency: settings.latency)]
        if let stateLog = settings.stateLog { middlewares.append(Persistence(stateLog: stateLog)) }
        middlewares.append(Recording(journal: journal, log: settings.log))
        self.middlewares = middlewares
    }

    /// How long the app has served: `42 s`, `5 min 3 s`, `2 h 10 min`.
    public var uptime: String { IndexPage.duration(Date().timeIntervalSince(startedAt)) }

    public func respond(to request: Request) -> Response {
        pass(routed(request), from: 0)
    }

    /// A body over `--max-body` (413) or `--memory-budget` (503) on a course API's path is refused
    /// in that API's own format: its answer to a body too large, or to an unavailable server; on
    /// `/_mock/…` in the admin's JSON errors.
    public func refusal(of request: Request, status: Int, reason: String) -> Response? {
        let routed = routed(request)
        guard let flag = [413: "--max-body", 503: "--memory-budget"][status] else { return nil }
        guard let api = routed.api else {
            guard routed.route.group?.name == AdminAPI.name else { return nil }
            var response = Response.json(status, ["error": status == 413 ? "body_too_large" : "memory_budget", "detail": reason])
            response.routeGroup = AdminAPI.name
            return response
        }
        var answer = status == 413 ? api.bodyTooLarge(reason) : api.injectedFault(status: 503)
        // The body is left unread and the connection closes, so the client must see the status
        // (OTP's injected faults are HTTP 200: docs/apis/otp.md#errors).
        answer.status = status
        return CORS().respond(to: routed) { _ in
            var response = answer
            response.routeGroup = api.name
            response.explanation = "\(reason) (\(flag)); the body was not read"
            return response
        }
    }

    private func routed(_ request: Request) -> RoutedRequest {
        let route = router.match(method: request.method, path: request.path)
        let group = route.group
        // A stub answers before any course API, never instead of the control surface.
        let stub = group?.name == AdminAPI.name ? nil : stubs.match(request)
        return RoutedRequest(request: request, route: route, api: stub == nil ? group.flatMap { apisByName[$0.name] } : nil,
                             stub: stub)
    }

    /// The request through the middlewares from `index` on, then to its route.
    private func pass(_ request: RoutedRequest, from index: Int) -> Response {
        guard index < middlewares.count else { return answer(request) }
        return middlewares[index].respond(to: request) { self.pass($0, from: index + 1) }
    }

    private func answer(_ routed: RoutedRequest) -> Response {
        var response: Response
        if let stub = routed.stub {
            response = stub.answer()
            response.routeGroup = StubSet.name
            return response
        }
        switch routed.route {
        case let .found(group, handler, parameters):
            var request = routed.request
            request.pathParameters = parameters
            response = handler(request)
            response.routeGroup = group.name
        case let .methodNotAllowed(group, allowed):
            let request = routed.request
            response = group.methodNotAllowed(request)
            response.headers.set("Allow", allowed.headerValue)
            response.explanation = "\(request.path) does not take \(request.method), only \(allowed.headerValue)"
            response.routeGroup = group.name
        case let .preflight(group, allowed):
            // The CORS middleware answers preflights; without it, the router's methods still are.
            response = CORS.preflight(allowed)
            response.routeGroup = group.name
        case .notFound where routed.request.method == "OPTIONS" && !stubs.methods(forPath: routed.request.path).isEmpty:
            // A preflight for an endpoint only stubs serve.
            response = CORS.preflight(stubs.methods(forPath: routed.request.path).union(.options))
            response.routeGroup = StubSet.name
        case .notFound:
            response = notFound(routed.request)
        }
        return response
    }

    public func didRespond(_ exchange: Exchange) {
        for middleware in middlewares { middleware.didRespond(exchange) }
    }

    /// An https client on the http port: the one console line and journal entry it gets.
    public func didRefuseTLS(_ attempt: TLSAttempt) {
        let reason = tlsReason(attempt)
        // No request was read and nothing answered: method `TLS`, no status.
        journal.record(Journal.Entry(at: attempt.at, method: "TLS", path: "", reason: reason))
        log?.note(reason, from: attempt.peer, at: attempt.at)
    }

    func tlsReason(_ attempt: TLSAttempt) -> String {
        let problem = "the client spoke https to this http port (connection closed): use "
        // An https public URL is a TLS proxy in front of this port: the client went around it.
        if let publicURL = addresses.publicURL, publicURL.isHTTPS {
            return problem + "\(publicURL.origin)/…, the address in front of this server (--public-url)"
        }
        return problem + "\(addresses.plainHTTPAddress(serverName: attempt.serverName, port: attempt.port))/… "
            + "instead of https://, and see docs/clients.md for the platform's cleartext setting"
    }

    /// The 404 of every path no API serves, with what the client most likely meant, in this order
    /// (docs/admin.md#why-a-request-failed): a stub it almost matched, an API `--only` left out, the closest route.
    private func notFound(_ request: Request) -> Response {
        var fields: [(key: String, value: String)] = [("error", "not_found"), ("path", request.path)]
        let reason: String
        if let (stub, missed) = stubs.nearMiss(request) {
            fields.append(("stub", stub.route.text))
            reason = "no API serves this path, and the stub \(stub.described) almost matched: \(missed)"
        } else if let group = hintRouter.match(method: request.method, path: request.path).group?.name,
                  notServed.contains(group) {
            fields.append(("not_served", group))
            reason = "\(group) is not served (--only \(apis.map(\.name).joined(separator: ",")))"
        } else if let closest = hintRouter.closestRoute(method: request.method, path: request.path) {
            fields.append(("hint", closest.route))
            if notServed.contains(closest.group) {
                fields.append(("not_served", closest.group))
                reason = "no API served here has this path; did you mean `\(closest.route)`? It is \(closest.group)'s, "
                    + "which is not served (--only \(apis.map(\.name).joined(separator: ",")))"
            } else {
                reason = "no API serves this path; did you mean `\(closest.route)`?"
            }
        } else {
            reason = "no API serves this path"
        }
        var response = Response.json(404, JSONWriter.flatObject(fields, escapeSlash: false))
        response.explanation = reason
        return response
    }
}
