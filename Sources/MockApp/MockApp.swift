import Foundation
import MockHTTP
import MockKit

/// Settings of the whole app that come from the command line.
public struct AppSettings: Sendable {
    /// `--admin-token`: required of every `/_mock/…` caller when set.
    public var adminToken: String?
    public var log: RequestLog?
    /// `--journal`: requests kept for `/_mock/requests` (0 turns the journal off).
    public var journalCapacity = 1000
    /// `--latency`, in milliseconds.
    public var latency: ClosedRange<Double>?
    /// `--state`: where every change is written.
    public var stateFile: StateFile?

    public init(adminToken: String? = nil, log: RequestLog? = nil) {
        self.adminToken = adminToken
        self.log = log
    }
}

/// The responder behind the server: the control surface, then the stubs, then every course API at
/// its own paths, with CORS on every course answer, latency and faults where asked, and the common 404.
public final class MockApp: HTTPResponder {
    public let apis: [any MockAPI]
    private let apisByName: [String: any MockAPI]
    private let router: Router
    private let settings: AppSettings
    let journal: Journal
    /// Faults set through `/_mock/faults`; `--latency` applies where they set none.
    let faults = Locked(Faults())
    let startedAt = Date()
    public let stubs: StubSet

    /// `stubs`: the stubs folder's (`StubSet.load`); by default only stubs added at run time.
    /// Fails when the route tables cannot work as written (two APIs claiming one path, …).
    public init(apis: [any MockAPI], settings: AppSettings = AppSettings(), stubs: StubSet? = nil) throws(RouteTableError) {
        self.apis = apis
        self.settings = settings
        self.stubs = stubs ?? StubSet(apis: apis)
        journal = Journal(capacity: settings.journalCapacity)
        let admin = AdminAPI(apis: apis, settings: settings, journal: journal, faults: faults, stubs: self.stubs,
                             startedAt: startedAt)
        router = try Router(groups: [admin.routes] + apis.map(\.routes))
        // The router has made sure that the names differ.
        apisByName = Dictionary(uniqueKeysWithValues: apis.map { ($0.name, $0) })
    }

    public func respond(to request: Request) -> Response {
        var response: Response
        let match = router.match(method: request.method, path: request.path)
        if case let .found(group, _, _) = match, group.name == AdminAPI.name {
            // The control surface is never stubbed.
        } else if let (stub, path, query) = stubs.match(request) {
            response = serve(request, as: StubSet.name, injectedFault: StubSet.injectedFault) { _ in
                stub.answer(path: path, query: query)
            }
            response.delay += stub.delay
            response.routeGroup = StubSet.name
            response.headers.add("Access-Control-Allow-Origin", "*")
            return response
        }
        switch match {
        case let .found(group, handler, parameters):
            var routed = request
            routed.pathParameters = parameters
            if let api = apisByName[group.name] {
                response = serve(routed, as: api.name, injectedFault: api.injectedFault) { request in
                    defer { self.settings.stateFile?.persist(api) }
                    return handler(request)
                }
            } else {
                response = handler(routed)
            }
            response.routeGroup = group.name
        case let .methodNotAllowed(group, allowed):
            response = group.methodNotAllowed(request)
            response.headers.set("Allow", allowed.headerValue)
            response.explanation = "\(request.path) does not take \(request.method), only \(allowed.headerValue)"
            response.routeGroup = group.name
            response.delay = delay(faults.withLock { $0.rule(for: group.name, method: request.method, path: request.path) })
        case let .preflight(group, allowed):
            response = group.name == AdminAPI.name ? AdminAPI.preflightRefused : Self.preflight(allowed)
            response.routeGroup = group.name
        case .notFound:
            response = Self.notFound(request.path, closest: router.closestRoute(method: request.method, path: request.path))
        }
        if response.routeGroup != AdminAPI.name {
            response.headers.add("Access-Control-Allow-Origin", "*")
        }
        return response
    }

    /// An answer of a course API or of the stubs: maybe an injected error or a connection fault
    /// instead, maybe held back. A reset or a close stops the request before the handler sees it,
    /// so nothing changes; a truncated or slow answer is the handler's own, changes made.
    private func serve(_ request: Request, as api: String, injectedFault: (Int) -> Response,
                       handler: (Request) -> Response) -> Response {
        let rule = faults.withLock { $0.rule(for: api, method: request.method, path: request.path) }
        let draw = rule?.draw() ?? FaultRule.Draw()
        var response: Response
        if let status = draw.errorStatus {
            response = injectedFault(status)
        } else if draw.connectionFault == .reset || draw.connectionFault == .close {
            response = Response(status: 0)
        } else {
            response = handler(request)
        }
        response.connectionFault = draw.connectionFault
        response.explanation = draw.note.map { "injected fault: \($0), set through /_mock/faults (DELETE /_mock/faults clears it)" }
        response.delay = delay(rule)
        return response
    }

    /// The rule's latency where it sets one, else `--latency`.
    private func delay(_ rule: FaultRule?) -> Double {
        if let latency = rule?.latency { return Faults.delay(in: latency) }
        return settings.latency.map(Faults.delay) ?? 0
    }

    public func didRespond(_ exchange: Exchange) {
        if exchange.response.routeGroup != AdminAPI.name && !exchange.request.path.hasPrefix("/_mock/") {
            journal.record(exchange)
        }
        // Logged last, so whoever has seen the line finds the entry in the journal.
        settings.log?.record(exchange)
    }

    /// The 404 of every path no API serves: `{"error":"not_found","path":"/as/received"}`, with
    /// `"hint":"GET /api/threads"` when a served route is close to the path.
    static func notFound(_ path: String, closest: String?) -> Response {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        writer.key("error")
        writer.string("not_found")
        writer.key("path")
        writer.string(path)
        if let closest {
            writer.key("hint")
            writer.string(closest)
        }
        writer.endObject()
        var response = Response.json(404, writer.bytes)
        response.explanation = closest.map { "no API serves this path; did you mean `\($0)`?" } ?? "no API serves this path"
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
