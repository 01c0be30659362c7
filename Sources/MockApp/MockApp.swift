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

/// The responder behind the server: the control surface, then every course API at its own paths,
/// with CORS on every course answer, latency and faults where asked, and the common 404.
public final class MockApp: HTTPResponder {
    public let apis: [any MockAPI]
    private let apisByName: [String: any MockAPI]
    private let router: Router
    private let settings: AppSettings
    let journal: Journal
    /// Faults set through `/_mock/faults`; `--latency` applies where they set none.
    let faults = Locked(Faults())
    let startedAt = Date()

    /// Fails when the route tables cannot work as written (two APIs claiming one path, …).
    public init(apis: [any MockAPI], settings: AppSettings = AppSettings()) throws(RouteTableError) {
        self.apis = apis
        self.settings = settings
        journal = Journal(capacity: settings.journalCapacity)
        let admin = AdminAPI(apis: apis, settings: settings, journal: journal, faults: faults, startedAt: startedAt)
        router = try Router(groups: [admin.routes] + apis.map(\.routes))
        // The router has made sure that the names differ.
        apisByName = Dictionary(uniqueKeysWithValues: apis.map { ($0.name, $0) })
    }

    public func respond(to request: Request) -> Response {
        var response: Response
        switch router.match(method: request.method, path: request.path) {
        case let .found(group, handler, parameters):
            var routed = request
            routed.pathParameters = parameters
            if let api = apisByName[group.name] {
                response = serve(routed, by: api, handler: handler)
            } else {
                response = handler(routed)
            }
            response.routeGroup = group.name
        case let .methodNotAllowed(group, allowed):
            response = group.methodNotAllowed(request)
            response.headers.set("Allow", allowed.headerValue)
            response.explanation = "\(request.path) does not take \(request.method), only \(allowed.headerValue)"
            response.routeGroup = group.name
            response.delay = delay(for: group.name)
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

    /// A course API's answer: maybe an injected error instead, maybe held back, always persisted.
    private func serve(_ request: Request, by api: any MockAPI, handler: Handler) -> Response {
        let active = faults.withLock { $0 }
        var response: Response
        if active.applies(to: api.name), let status = active.drawError() {
            response = api.injectedFault(status: status)
            response.explanation = "injected fault: \(status) set through /_mock/faults (DELETE /_mock/faults clears it)"
        } else {
            response = handler(request)
            settings.stateFile?.persist(api)
        }
        response.delay = delay(for: api.name, faults: active)
        return response
    }

    private func delay(for api: String, faults active: Faults? = nil) -> Double {
        let active = active ?? faults.withLock { $0 }
        if let latency = active.latency, active.applies(to: api) { return Faults.delay(in: latency) }
        return settings.latency.map(Faults.delay) ?? 0
    }

    public func didRespond(_ exchange: Exchange) {
        if exchange.response.routeGroup != AdminAPI.name && !exchange.request.path.hasPrefix("/_mock/") {
            journal.record(exchange)
        }
        // Logged last, so whoever has seen the line finds the entry in the journal.
        settings.log?.record(exchange)
    }

    /// An https client on the http port: the one console line and journal entry it gets.
    public func didRefuseTLS(_ attempt: TLSAttempt) {
        let reason = Self.tlsReason(attempt)
        journal.record(Journal.Entry(tlsAttempt: attempt, reason: reason))
        settings.log?.note(reason, from: attempt.peer, at: attempt.at)
    }

    static func tlsReason(_ attempt: TLSAttempt) -> String {
        "the client spoke https to this http port (connection closed): use http://\(attempt.serverName ?? "HOST"):\(attempt.port)/… "
            + "instead of https://, and see docs/clients.md for the platform's cleartext setting"
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
