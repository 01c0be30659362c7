import Foundation
import MockHTTP

/// Endava School of iOS "InternProducts" LocalBackend (contract: internproducts.md).
/// Paths match case-insensitively; parameters come from the query only; every answer is 200.
///
/// | method    | path      | query                        | answer                                  |
/// |-----------|-----------|------------------------------|-----------------------------------------|
/// | GET, HEAD | /login    | username, password           | the user's lifelong `loginToken`        |
/// | GET, HEAD | /register | username, password           | a new user and its `loginToken`         |
/// | GET, HEAD | /products | loginToken                   | every product, newest first, base64 art |
public final class InternProductsAPI: MockAPI {
    public let name = "internproducts"

    public var routes: RouteGroup {
        RouteGroup(api: name, matching: PathMatching(caseInsensitive: true), routes: [
            // HEAD runs the GET handler, side effects included, as GCDWebServer did.
            Route([.get, .head], "/login", endpoint(login)),
            Route([.get, .head], "/register", endpoint(register)),
            Route([.get, .head], "/products", endpoint(products)),
        ], methodNotAllowed: { request in InternProductsError.methodNotAllowed(request.method).response })
    }

    public var openAPIDocument: [UInt8]? { InternProductsOpenAPI.document }

    private let state: SeededStore<InternProductsState, InternProductsState>
    private let clock: @Sendable () -> Date

    /// `seedFolder` is the `Seed/` directory; product images may be files under `Seed/internproducts/`.
    init(seed document: JSONValue, seedFolder: URL, options: APIOptions) throws(SeedError) {
        let images = InternProductsImages.base64OrFile(in: seedFolder.appendingPathComponent(name))
        let initial = try InternProductsState(seed: document, images: images, now: options.clock())
        state = SeededStore(initial)
        clock = options.clock
    }

    public func reset() {
        state.reset()
    }

    public func exportState() -> [UInt8] {
        state.read { state, _ in state.seedDocument() }
    }

    public func loadState(_ document: JSONValue) throws(SeedError) {
        let loaded = try InternProductsState(seed: document, images: .base64, now: clock())
        state.replace { $0 = loaded }
    }

    public var loggedStore: any LoggedStore { state }

    public func injectedFault(status: Int) -> Response {
        InternProductsError.serviceUnavailable.response(status: status)
    }

    public var summary: APISummary {
        let users = state.seed.users
        return APISummary(title: "Endava School of iOS InternProducts", basePaths: ["/"],
                          endpoints: "GET /register, GET /login, GET /products (query parameters)",
                          accounts: users.map { .init(login: $0.username, password: $0.password, detail: "loginToken \($0.loginToken)") })
    }

    // MARK: Endpoints

    private func login(_ request: Request) throws(InternProductsError) -> Response {
        let query = InternProductsQuery(request)
        let username = try query.required("username")
        let password = try query.required("password")
        let token = try state.withLock { state throws(InternProductsError) in
            guard let user = state.user(named: username) else { throw .noSuchUser(username) }
            guard user.password == password else { throw .wrongPassword(username) }
            return user.loginToken
        }
        return Self.json(TokenAnswer(loginToken: token))
    }

    private func register(_ request: Request) throws(InternProductsError) -> Response {
        let query = InternProductsQuery(request)
        let username = try query.required("username")
        let password = try query.required("password")
        let now = clock()
        let token = try state.withLock { state throws(InternProductsError) in
            guard let token = state.register(username: username, password: password, at: now) else {
                throw .usernameUsed(username)
            }
            return token
        }
        return Self.json(TokenAnswer(loginToken: token))
    }

    private func products(_ request: Request) throws(InternProductsError) -> Response {
        let token = try InternProductsQuery(request).required("loginToken")
        let body = try state.withLock { state throws(InternProductsError) in
            guard state.isLive(token: token) else { throw .invalidToken }
            return state.productsBody
        }
        return Self.answer(body)
    }

    // MARK: Helpers

    /// Compact JSON with `/` escaped, as Apple's serializer wrote it.
    static func json(_ value: some Encodable, status: Int = 200) -> Response {
        answer(OrderedJSON.encode(value, escapeSlash: true), status: status)
    }

    /// GCDWebServer's JSON headers: the bare media type, and no caching.
    static func answer(_ body: [UInt8], status: Int = 200) -> Response {
        Response(status: status, headers: HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "no-cache")]),
                 body: body)
    }

    /// Turns a throwing endpoint into a handler: thrown errors become FAILED bodies.
    private func endpoint(_ body: @escaping @Sendable (Request) throws(InternProductsError) -> Response) -> Handler {
        { request in
            do throws(InternProductsError) { return try body(request) } catch { return error.response }
        }
    }
}
