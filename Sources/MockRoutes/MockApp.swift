import Foundation
import MockHTTP

/// Settings of the whole app that come from the command line.
public struct AppSettings: Sendable {
    /// `--admin-token`: required of every `/_mock/…` caller when set.
    public var adminToken: String?
    public var log: RequestLog?

    public init(adminToken: String? = nil, log: RequestLog? = nil) {
        self.adminToken = adminToken
        self.log = log
    }
}

/// The responder behind the server: the control surface, then every course API at its own paths,
/// with CORS on every course answer and the common 404 for everything else.
public final class MockApp: HTTPResponder {
    public let apis: [any MockAPI]
    private let router: Router
    private let settings: AppSettings
    let startedAt = Date()

    public init(apis: [any MockAPI], settings: AppSettings = AppSettings()) {
        self.apis = apis
        self.settings = settings
        let admin = AdminAPI(apis: apis, adminToken: settings.adminToken, startedAt: startedAt)
        router = Router(groups: [admin.routes] + apis.map(\.routes))
    }

    public func respond(to request: Request) -> Response {
        var response: Response
        switch router.match(method: request.method, path: request.path) {
        case let .found(group, handler, parameters):
            var routed = request
            routed.pathParameters = parameters
            response = handler(routed)
            response.api = group.api
        case let .methodNotAllowed(group, allowed):
            response = group.methodNotAllowed(request)
            response.headers.set("Allow", allowed.headerValue)
            response.api = group.api
        case let .preflight(group, allowed):
            response = group.api == AdminAPI.name ? AdminAPI.preflightRefused : Self.preflight(allowed)
            response.api = group.api
        case .notFound:
            response = Self.notFound(request.path)
        }
        if response.api != AdminAPI.name {
            response.headers.add("Access-Control-Allow-Origin", "*")
        }
        return response
    }

    public func didRespond(_ exchange: Exchange) {
        settings.log?.record(exchange)
    }

    /// The 404 of every path no API serves: `{"error":"not_found","path":"/as/received"}`.
    static func notFound(_ path: String) -> Response {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        writer.key("error")
        writer.string("not_found")
        writer.key("path")
        writer.string(path)
        writer.endObject()
        return .json(404, writer.bytes)
    }

    static func preflight(_ allowed: Methods) -> Response {
        Response(status: 204, headers: HTTPHeaders([
            ("Access-Control-Allow-Methods", allowed.headerValue),
            ("Access-Control-Allow-Headers", "Authorization, Content-Type, x-authtoken"),
            ("Access-Control-Max-Age", "600"),
        ]))
    }
}
