import Foundation
import MockHTTP
import MockSupport

/// Settings from the command line that some APIs read.
public struct APIOptions: Sendable {
    /// A fixed one-time code instead of random ones (`--otp-code`).
    public var otpCode: String?
    /// Seconds a one-time code stays valid (`--otp-ttl`).
    public var otpTTL = 600
    /// The zone of WSUV Twitter's time stamps (`--wsuv-tz`).
    public var wsuvTimeZone = TimeZone(identifier: "America/Los_Angeles") ?? TimeZone(secondsFromGMT: -8 * 3600)!
    /// Where console lines other than the request log go (OTP codes).
    public var console: @Sendable (String) -> Void = { print($0) }
    /// The clock every API reads; tests inject their own.
    public var clock: @Sendable () -> Date = { Date() }
    /// Where tokens, codes and ids are minted from; each API takes its own stream.
    public var randomness = Randomness()
    /// Live tokens logins may have issued in one API before the oldest ends (docs/apis/threads.md#tokens);
    /// no command-line option: tests set a small one.
    public var issuedTokenLimit = 100_000
    /// Rows one table may hold before client writes to it are refused, when lower than the table's
    /// own cap (100,000: each API's page, "Size limits"); no command-line option: tests set a small one.
    public var rowLimit: Int?
    /// What clients store, charged to the server's memory budget (`StoredText`); nil: not charged.
    public var storedText: StoredText?

    public init() {}
}

/// One course API: its routes, its in-memory state, and the seed that state returns to.
public protocol MockAPI: AnyObject, Sendable {
    /// The short name used by `--only`, `/_mock/reset/{api}` and the journal.
    var name: String { get }
    /// The route table, read once when the server starts.
    var routes: RouteGroup { get }
    /// Back to the seed: every change and every token issued since is gone.
    func reset()
    /// The live state in the seed file's format, live tokens included (`GET /_mock/state/{name}`).
    func exportState() -> [UInt8]
    /// Validates a seed-format document and makes it the live state (`PUT /_mock/state/{name}`,
    /// `--state`); reset still returns to the seed. On an error nothing changes.
    func loadState(_ document: SeedJSON) throws(SeedError)
    /// The seed file read again (`--watch`), as at start-up: checked, it becomes the seed reset
    /// returns to and the live state, with the live tokens of users it still has; on an error
    /// nothing changes. Says what changed.
    func reloadSeed() throws(SeedError) -> SeedReload
    /// From now on every change of the state is written to `log` before it is acknowledged.
    func attach(to log: StateLog)
    /// Runs `body` with the state locked: no request reads or changes it meanwhile.
    func holdingState(_ body: () -> Void)
    /// This API's own answer to an injected fault of the given status (docs/admin.md#faults-and-latency).
    func injectedFault(status: Int) -> Response
    /// This API's own answer to a body over `--max-body` (docs/reliability.md#memory-and-size-limits).
    func bodyTooLarge(_ reason: String) -> Response
    /// Where the API lives and which accounts its seed has, for the banner and the index page.
    var summary: APISummary { get }
    /// Extra `/_mock/…` endpoints of this API (the OTP outbox); served under the admin access rule.
    var adminRoutes: [Route] { get }
    /// This API's OpenAPI 3.1 document, served at `/_mock/openapi/{name}.json`.
    var openAPIDocument: [UInt8]? { get }
}

extension MockAPI {
    public var adminRoutes: [Route] { [] }
    public var openAPIDocument: [UInt8]? { nil }

    /// `POST /api/login`, … for the banner and the index page: the routes under the first base
    /// path, in table order (HEAD goes with GET; `GET/POST` where a path takes both, `any` for a CGI script).
    public var endpoints: [String] {
        var base = summary.basePaths.first ?? ""
        if base.hasSuffix("/") { base.removeLast() }
        return routes.routes.filter { $0.pattern == base || $0.pattern.hasPrefix(base + "/") }.map { route in
            let methods = route.methods == .any
                ? "any" : route.methods.subtracting(.head).headerValue.replacingOccurrences(of: ", ", with: "/")
            return "\(methods) \(route.pattern)"
        }
    }
}

/// What a person needs to point a client at an API: its paths and its seeded accounts.
public struct APISummary: Sendable {
    public struct Account: Sendable {
        public var login: String
        /// nil where the API has no passwords (one-time codes).
        public var password: String?
        public var detail: String

        public init(login: String, password: String?, detail: String = "") {
            self.login = login
            self.password = password
            self.detail = detail
        }
    }

    /// The course, e.g. `UNC Charlotte ITIS/CS 4180 message threads`.
    public var title: String
    /// Base paths a client can use, first the usual one (`/api/`).
    public var basePaths: [String]
    public var note: String?
    /// The first `listedAccounts` seeded accounts.
    public var accounts: [Account]
    /// How many more the seed has: a large seed's accounts are counted, not listed.
    public var unlistedAccounts: Int

    public static let listedAccounts = 20

    /// An API without accounts.
    public init(title: String, basePaths: [String], note: String? = nil) {
        self.init(title: title, basePaths: basePaths, note: note, seeded: [Account](), count: 0) { $0 }
    }

    /// `accounts` makes one account from each of the `count` seeded rows; only the first
    /// `listedAccounts` are made.
    public init<Row>(title: String, basePaths: [String], note: String? = nil,
                     seeded rows: some Sequence<Row>, count: Int, accounts: (Row) -> Account) {
        self.title = title
        self.basePaths = basePaths
        self.note = note
        self.accounts = rows.prefix(Self.listedAccounts).map(accounts)
        unlistedAccounts = max(0, count - Self.listedAccounts)
    }
}
