import Foundation
import MockHTTP

/// The control surface of admin.md: `/_mock/…`, for the people who run the mock.
/// Only loopback callers may use it, or, with `--admin-token`, callers that present the token.
///
/// | method | path                  | what                                  |
/// |--------|-----------------------|---------------------------------------|
/// | GET    | /_mock/health         | liveness, version, uptime, APIs       |
/// | POST   | /_mock/reset          | every API back to its seed            |
/// | POST   | /_mock/reset/{api}    | one API back to its seed              |
/// | GET    | /_mock/openapi/{file} | an API's OpenAPI document ({api}.json) |
final class AdminAPI: Sendable {
    static let name = "admin"

    private let apis: [any MockAPI]
    private let adminToken: String?
    private let startedAt: Date

    init(apis: [any MockAPI], adminToken: String?, startedAt: Date) {
        self.apis = apis
        self.adminToken = adminToken
        self.startedAt = startedAt
    }

    var routes: RouteGroup {
        RouteGroup(api: Self.name, routes: [
            Route([.get, .head], "/_mock/health", guarded(health)),
            Route(.post, "/_mock/reset", guarded(resetAll)),
            Route(.post, "/_mock/reset/{api}", guarded(resetOne)),
            Route([.get, .head], "/_mock/openapi/{file}", guarded(openAPI)),
        ] + apis.flatMap(\.adminRoutes).map { Route($0.methods, $0.pattern, guarded($0.handler)) },
        methodNotAllowed: { request in
            Self.json(405, ["error": "method_not_allowed", "detail": "\(request.method) is not served here"])
        })
    }

    static let preflightRefused = json(405, ["error": "method_not_allowed", "detail": "no CORS on /_mock"])

    // MARK: Endpoints

    private func health(_ request: Request) -> Response {
        let uptime = (Date().timeIntervalSince(startedAt) * 10).rounded() / 10
        return .json(200, OrderedJSON.encode(Health(version: MockBackend.version, uptimeS: uptime, apis: apis.map(\.name)),
                                             escapeSlash: false))
    }

    private struct Health: Encodable {
        var status = "ok"
        var version: String
        var uptimeS: Double
        var apis: [String]

        enum CodingKeys: String, CodingKey {
            case status, version, uptimeS = "uptime_s", apis
        }
    }

    private func resetAll(_ request: Request) -> Response {
        for api in apis { api.reset() }
        return .json(200, OrderedJSON.encode(["reset": apis.map(\.name)], escapeSlash: false))
    }

    private func resetOne(_ request: Request) -> Response {
        let name = request[parameter: "api"] ?? ""
        guard let api = apis.first(where: { $0.name == name }) else {
            return Self.json(404, ["error": "unknown_api", "api": name])
        }
        api.reset()
        return .json(200, OrderedJSON.encode(["reset": [name]], escapeSlash: false))
    }

    private func openAPI(_ request: Request) -> Response {
        let file = request[parameter: "file"] ?? ""
        let name = file.hasSuffix(".json") ? String(file.dropLast(5)) : file
        guard let document = apis.first(where: { $0.name == name })?.openAPIDocument else {
            return Self.json(404, ["error": "unknown_api", "api": name])
        }
        return .json(200, document)
    }

    // MARK: Access

    /// Loopback only, unless a token is configured: then the token, from anywhere.
    private func guarded(_ handler: @escaping @Sendable (Request) -> Response) -> Handler {
        { [adminToken] request in
            if let adminToken {
                let bearer = request.headers["Authorization"].flatMap { value -> String? in
                    value.lowercased().hasPrefix("bearer ") ? String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces) : nil
                }
                guard bearer == adminToken || request.headers["X-Mock-Admin-Token"] == adminToken else {
                    return Self.json(401, ["error": "unauthorized",
                                           "detail": "send Authorization: Bearer <admin token> or X-Mock-Admin-Token"])
                }
            } else if !request.peer.isLoopback {
                return Self.json(403, ["error": "forbidden",
                                       "detail": "/_mock is served to loopback clients only; start the server with --admin-token to allow others"])
            }
            return handler(request)
        }
    }

    /// A flat JSON object in the order given.
    static func json(_ status: Int, _ members: KeyValuePairs<String, String>) -> Response {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        for (key, value) in members {
            writer.key(key)
            writer.string(value)
        }
        writer.endObject()
        return .json(status, writer.bytes)
    }
}
