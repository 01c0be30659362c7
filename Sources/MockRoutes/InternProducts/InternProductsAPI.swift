import Foundation
import MockHTTP
import MockKit

/// Endava School of iOS "InternProducts" LocalBackend (docs/apis/internproducts.md).
/// Paths match case-insensitively; parameters come from the query only; every answer is 200.
public final class InternProductsAPI: CourseAPI {
    public typealias Failure = InternProductsError
    public static let name = "internproducts"

    public var routes: RouteGroup {
        routeGroup(matching: PathMatching(caseInsensitive: true), [
            // HEAD runs the GET handler, side effects included, as GCDWebServer did.
            Route([.get, .head], "/login", endpoint(login)), // the user's lifelong loginToken
            Route([.get, .head], "/register", endpoint(register)), // a new user and its loginToken
            Route([.get, .head], "/products", endpoint(products)), // every product, newest first, base64 art
        ])
    }

    public var openAPIDocument: [UInt8]? { InternProductsOpenAPI.document }

    public let state: SeededStore<InternProductsState, InternProductsState>

    public let context: SeedContext

    public init(seed: InternProductsState, context: SeedContext) {
        state = SeededStore(seed)
        self.context = context
    }

    /// Product images may be files under `Seed/internproducts/`, in a seed file and in a state
    /// document alike (an exported state inlines them as base64).
    public static func seed(from document: SeedJSON, in context: SeedContext) throws(SeedError) -> InternProductsState {
        let empty = InternProductsState(imageFolder: context.folder.url.appendingPathComponent(name), now: context.options.clock())
        return try InternProductsState(seed: document, into: empty)
    }

    public var summary: APISummary {
        let users = state.seed.users
        return APISummary(title: "Endava School of iOS InternProducts", basePaths: ["/"],
                          seeded: users.rows, count: users.count,
                          accounts: { .init(login: $0.username, password: $0.password, detail: "loginToken \($0.loginToken ?? "")") })
    }

    // MARK: Endpoints

    private func login(_ request: Request) throws(InternProductsError) -> Response {
        let query = InternProductsInput(request)
        let username = try query.required("username")
        let password = try query.required("password")
        let token = try state.withLock { state throws(InternProductsError) in
            guard let user = state.user(named: username) else { throw .noSuchUser(username) }
            guard user.password.hasSameBytes(as: password) else { throw .wrongPassword(username) }
            return user.loginToken ?? ""
        }
        return Self.json(object: ["status": "SUCCESS", "loginToken": token])
    }

    private func register(_ request: Request) throws(InternProductsError) -> Response {
        let query = InternProductsInput(request)
        let username = try query.required("username")
        let password = try query.required("password")
        var micros = InternProductsToken.micros(at: options.clock())
        return try state.withLock { state throws(InternProductsError) in
            guard state.user(named: username) == nil else { throw .usernameUsed(username) }
            if let full = refusedStoring([username, password], in: "users", holding: state.users.count, cap: Self.rowCap) {
                return full
            }
            let token = state.register(username: username, password: password, from: &micros)
            return Self.json(object: ["status": "SUCCESS", "loginToken": token])
        }
    }

    private func products(_ request: Request) throws(InternProductsError) -> Response {
        let token = try InternProductsInput(request).required("loginToken")
        let body = try state.withLock { state throws(InternProductsError) in
            guard state.isLive(token: token) else { throw .invalidToken(self.state.endedByReload(token)) }
            return state.catalog.body
        }
        return Self.json(body)
    }

    // MARK: Helpers

    /// `/` written `\/`, as Apple's serializer wrote it.
    public static let escapesSlash = true

    /// GCDWebServer's JSON headers: the bare media type, and no caching.
    public static func json(_ encoded: [UInt8], status: Int = 200) -> Response {
        Response(status: status, headers: HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "no-cache")]),
                 body: encoded)
    }
}
