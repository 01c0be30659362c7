import Foundation
import MockHTTP
import MockKit

/// WSU Vancouver CS 458 "WSUV Twitter" (docs/apis/wsuv-twitter.md): five Perl CGI scripts on one
/// SQLite database, each under four prefixes. The scripts never looked at the method.
public final class WSUVTwitterAPI: CourseAPI {
    public typealias Failure = WSUVError
    public static let name = "wsuv"

    /// `/login.cgi`, `/cgi-bin/login.cgi`, `/~cs458/cgi-bin/login.cgi` (test server), `/~wcochran/cgi-bin/login.cgi` (main).
    static let prefixes = ["", "/cgi-bin", "/~cs458/cgi-bin", "/~wcochran/cgi-bin"]
    static let scriptNames = ["get-tweets.cgi", "register.cgi", "login.cgi", "add-tweet.cgi", "del-tweet.cgi"]
    /// What each script reads, and whether it must be there (docs/apis/wsuv-twitter.md#endpoints).
    static let parameters: [String: [(name: String, required: Bool)]] = [
        "get-tweets.cgi": [("date", false)],
        "register.cgi": [("username", true), ("password", true)],
        "login.cgi": [("username", true), ("password", true), ("action", false)],
        "add-tweet.cgi": [("username", true), ("session_token", true), ("tweet", true)],
        "del-tweet.cgi": [("username", true), ("session_token", true), ("tweet_id", true)],
    ]
    /// The 20 script paths, and how Apache reached them from other spellings.
    static let paths = ApachePath(scripts: prefixes.flatMap { prefix in scriptNames.map { "\(prefix)/\($0)" } })

    public var routes: RouteGroup {
        let handlers: [String: Handler] = [
            "get-tweets.cgi": script(getTweets),
            "register.cgi": script(register),
            "login.cgi": script(login),
            "add-tweet.cgi": script(addTweet),
            "del-tweet.cgi": script(deleteTweet),
        ]
        let routes = Self.prefixes.flatMap { prefix in
            Self.scriptNames.compactMap { name in handlers[name].map { Route(.any, "\(prefix)/\(name)", $0) } }
        }
        let routesByPath = Dictionary(uniqueKeysWithValues: routes.map { ($0.pattern, $0) })
        let aboveRoot = Route(.any, "/..", endpoint { _ throws(WSUVError) in throw .pathAboveRoot })
        // `//`, `.`, `..` and PATH_INFO, as Apache resolved them, for paths no API serves as written.
        let matching = PathMatching(percentDecoded: true, resolvesUnmatched: { path in
            switch Self.paths.resolve(path) {
            case let .script(scriptPath): return routesByPath[scriptPath]
            case .aboveRoot: return aboveRoot
            case nil: return nil
            }
        })
        // Every route takes any method, so the 405 answer is never used; OPTIONS is the preflight.
        return routeGroup(matching: matching, routes)
    }

    /// The script a request path runs (`login.cgi` for `/cgi-bin//login.cgi/extra`).
    static func scriptName(of path: String) -> String? {
        guard let decoded = FormDecoding.percentDecode(path, plusAsSpace: false),
              case let .script(scriptPath) = paths.resolve(decoded) else { return nil }
        return scriptPath.split(separator: "/").last.map(String.init)
    }

    public var openAPIDocument: [UInt8]? { WSUVTwitterOpenAPI.document }

    public let state: SeededStore<WSUVState, WSUVState>
    private let random: RandomStream

    public let context: SeedContext

    public init(seed: WSUVState, context: SeedContext) {
        state = SeededStore(seed)
        self.context = context
        random = context.options.randomness.stream(Self.name)
    }

    public var summary: APISummary {
        let users = state.seed.users
        return APISummary(title: "WSU Vancouver CS 458 WSUV Twitter",
                          basePaths: ["/~cs458/cgi-bin/", "/~wcochran/cgi-bin/", "/cgi-bin/", "/"],
                          seeded: users.rows, count: users.count, accounts: { .init(login: $0.username, password: $0.password) })
    }

    // MARK: Scripts

    private func getTweets(_ parameters: WSUVInput) throws(WSUVError) -> Response {
        let date = parameters["date"].map { Array($0.utf8) }
        // A NUL cut the SQL text short and the statement failed.
        if date?.contains(0) == true { throw .queryFailed }
        let tweets = state.read { state, _ in date.map(state.tweets(after:)) ?? Array(state.tweets.rows) }
        // `{"tweets":[…]}`, each tweet as its seed row: the scripts answered the table's columns.
        return Self.json(SeedFieldWriter.object { list in
            list.field("tweets", objects: tweets) { row, tweet in tweet.write(to: &row) }
        })
    }

    /// The longest username, password or tweet stored, in UTF-8 bytes: ten times the 100,000
    /// characters the real database held, far below a body that would burden every reader.
    static let fieldLimit = 1 << 20

    private static func checkLength(_ fields: KeyValuePairs<String, String>) throws(WSUVError) {
        for (name, value) in fields where value.utf8.count > fieldLimit { throw .tooLong(name) }
    }

    private func register(_ parameters: WSUVInput) throws(WSUVError) -> Response {
        guard let username = parameters["username"], let password = parameters["password"] else { throw .badRequest }
        try Self.checkLength(["username": username, "password": password])
        return try state.withLock { state throws(WSUVError) in
            guard state.user(username) == nil else { throw .userExists }
            if let full = refusedStoring([username, password], in: "users", holding: state.users.count, cap: Self.rowCap) {
                return full
            }
            let token = state.mintToken(random)
            state.add(WSUVState.User(username: username, password: password, sessionToken: token))
            return Self.json(object: ["session_token": token])
        }
    }

    private func login(_ parameters: WSUVInput) throws(WSUVError) -> Response {
        guard let username = parameters["username"], let password = parameters["password"] else { throw .badRequest }
        let loggingOut: Bool
        switch parameters["action"] {
        case nil, "login": loggingOut = false
        case "logout": loggingOut = true
        default: throw .badRequest
        }
        return try state.withLock { state throws(WSUVError) in
            guard let user = state.user(username) else { throw .noSuchUser }
            guard user.password.hasSameBytes(as: password) else { throw .unauthorized }
            if loggingOut {
                state.setSessionToken(nil, of: username)
            } else if user.sessionToken == nil {
                // Login keeps a live token; only a logged-out user gets a new one.
                state.setSessionToken(state.mintToken(random), of: username)
            }
            return Self.json(object: ["session_token": state.user(username)?.sessionToken ?? WSUVState.loggedOut])
        }
    }

    private func addTweet(_ parameters: WSUVInput) throws(WSUVError) -> Response {
        guard let username = parameters["username"], let token = parameters["session_token"],
              let text = parameters["tweet"] else { throw .badRequest }
        try Self.checkLength(["tweet": text])
        let stamp = stampNow()
        return try state.withLock { state throws(WSUVError) in
            try Self.authorize(username, token, in: state)
            if let full = refusedStoring([text], in: "tweets", holding: state.tweets.count, cap: Self.rowCap) { return full }
            try state.addTweet(text, author: username, stamp: stamp)
            return Self.json(object: ["tweet": text])
        }
    }

    private func deleteTweet(_ parameters: WSUVInput) throws(WSUVError) -> Response {
        guard let username = parameters["username"], let token = parameters["session_token"],
              let idText = parameters["tweet_id"] else { throw .badRequest }
        let stamp = stampNow()
        return try state.withLock { state throws(WSUVError) in
            try Self.authorize(username, token, in: state)
            // The id is compared as SQLite compares a text with an integer column: as a number.
            guard let id = SQLiteNumber.integerValue(Array(idText.utf8)),
                  let tweet = state.tweets[id] else { throw .noSuchTweet }
            guard tweet.username == username else { throw .notYourTweet }
            state.delete(id, stamp: stamp)
            // The row stays, as `[deleted]`.
            releaseStored([tweet.text], rows: 0)
            return Self.json(TweetDeleted(tweetID: idText))
        }
    }

    // MARK: Helpers

    /// An unknown user is 404 whatever the token; otherwise the token must be the user's live one,
    /// so `0` never passes (the real server let anyone post as a logged-out user with it).
    private static func authorize(_ username: String, _ token: String, in state: WSUVState) throws(WSUVError) {
        guard let user = state.user(username) else { throw .noSuchUser }
        guard let stored = user.sessionToken, stored.hasSameBytes(as: token) else { throw .unauthorized }
    }

    private func stampNow() -> String { WSUVState.stamp(options.clock(), in: options.wsuvTimeZone) }

    /// Turns a script into a handler: parameters read as CGI.pm did, thrown errors become bare statuses.
    private func script(_ body: @escaping @Sendable (WSUVInput) throws(WSUVError) -> Response) -> Handler {
        endpoint { request throws(WSUVError) in try body(try WSUVInput(request)) }
    }
}
