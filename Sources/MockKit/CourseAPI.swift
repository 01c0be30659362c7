import MockHTTP
import MockSupport

/// A course API built with the kit: a typed error, a JSON style, and state in a `SeededStore`.
/// Reset, state export and load, injected faults and the 405 come from here; an API says only
/// where it differs (`loadingSeed` for state a load keeps).
public protocol CourseAPI: MockAPI {
    associatedtype Failure: APIError
    associatedtype Seed
    associatedtype State: LoggedState & TokenCarrying

    /// The short name used by `--only`, `/_mock/reset/{api}` and the journal; the seed is `Seed/<name>.json`.
    static var name: String { get }
    /// Reads and checks a seed-format document: the one way from a seed file or a state document to
    /// a seed, whether at start-up, on `PUT /_mock/state/{name}`, on a `--watch` reload or from the
    /// `--state` file, so that what one of them accepts every one accepts (docs/admin.md#one-reader-for-seeds-and-states).
    static func seed(from document: SeedJSON, in context: SeedContext) throws(SeedError) -> Seed
    /// The API around a seed `seed(from:in:)` read; `init(seed:options:)` reads the seed file and calls it.
    init(seed: Seed, context: SeedContext)
    /// What reading a document needs besides its text, kept for the reads after start-up.
    var context: SeedContext { get }

    /// Whether JSON answers write `/` as `\/`, as the course's server did.
    static var escapesSlash: Bool { get }
    /// An answer with an encoded JSON body; by default `application/json; charset=utf-8`.
    static func json(_ encoded: [UInt8], status: Int) -> Response

    /// The live state and the seed it returns to.
    var state: SeededStore<Seed, State> { get }
    /// The live state in the seed file's format (`GET /_mock/state/{name}`, the `--state` snapshot).
    func stateJSON(of state: State) -> [UInt8]
    /// Each table's rows, for the console line of a reload (`4 users, 5 threads (+1), 12 messages`).
    static func tableCounts(of seed: Seed) -> TableCounts
    /// How a loaded document changes the live state; nil, the default, makes a fresh state from it.
    func loadingSeed(_ seed: Seed) -> ((inout State) -> Void)?
}

extension CourseAPI {
    public var name: String { Self.name }

    /// `/` as is, as most servers write it.
    public static var escapesSlash: Bool { false }

    /// The API filled from `Seed/<name>.json` in the seed folder.
    public init(seed folder: SeedDirectory, options: APIOptions) throws(SeedError) {
        let context = SeedContext(folder: folder, options: options)
        self.init(seed: try Self.seed(from: folder.document("\(Self.name).json"), in: context), context: context)
    }

    public static func json(_ encoded: [UInt8], status: Int = 200) -> Response {
        .json(status, encoded)
    }

    /// `value` as compact JSON in this API's style.
    public static func json(_ value: some Encodable, status: Int = 200) -> Response {
        json(OrderedJSON.encode(value, escapeSlash: escapesSlash), status: status)
    }

    public func loadingSeed(_ seed: Seed) -> ((inout State) -> Void)? { nil }

    /// The command line's settings, as the API was made with them.
    public var options: APIOptions { context.options }

    /// The most rows clients may store in a table whose list answer carries them all, or under one
    /// parent whose answer does (cse118's channels of a workspace): each API's page, "Size limits".
    public static var rowCap: Int { 100_000 }

    /// A flat object of string members in the order given, in this API's JSON style: the answers
    /// too small for a shape of their own (`{"session_token":"…"}`, most error bodies).
    public static func json(object members: KeyValuePairs<String, String>, status: Int = 200) -> Response {
        json(JSONWriter.flatObject(Array(members), escapeSlash: escapesSlash), status: status)
    }

    public func reset() {
        state.reset()
        releaseStoredText()
    }

    public func exportState() -> [UInt8] {
        state.read { state, _ in stateJSON(of: state) }
    }

    public func loadState(_ document: SeedJSON) throws(SeedError) {
        let loaded = try Self.seed(from: document, in: context)
        state.load(loaded, update: loadingSeed(loaded))
        releaseStoredText()
    }

    public func reloadSeed() throws(SeedError) -> SeedReload {
        let reloaded = try Self.seed(from: context.folder.document("\(Self.name).json"), in: context)
        let before = Self.tableCounts(of: state.seed)
        let tokens = state.reseed(reloaded, at: context.options.clock())
        releaseStoredText()
        return SeedReload(before: before, after: Self.tableCounts(of: reloaded), tokens: tokens)
    }

    public func attach(to log: StateLog) {
        state.attach(to: log, as: name) { [unowned self] (state: State) -> [UInt8] in stateJSON(of: state) }
    }

    public func holdingState(_ body: () -> Void) {
        state.holding(body)
    }

    public func injectedFault(status: Int) -> Response {
        Failure.injectedFault(status: status)
    }

    public func bodyTooLarge(_ reason: String) -> Response {
        Failure.bodyTooLarge(reason)
    }

    /// The route table with this API's 405.
    public func routeGroup(matching: PathMatching = PathMatching(), _ routes: [Route]) -> RouteGroup {
        RouteGroup(name: name, matching: matching, routes: routes, methodNotAllowed: Failure.methodNotAllowed)
    }
}

extension CourseAPI where State: StoredState {
    public func stateJSON(of state: State) -> [UInt8] {
        state.seedDocument
    }
}

/// A seed kept in tables, whether the live state is the same (most APIs) or holds more (OTP's codes).
extension CourseAPI where Seed: StoredState {
    public static func tableCounts(of seed: Seed) -> TableCounts {
        seed.tableCounts
    }

    public static func seed(from document: SeedJSON, in context: SeedContext) throws(SeedError) -> Seed {
        try Seed(seed: document)
    }
}

/// What reading a seed or state document needs besides its text: the seed folder, where files a
/// seed names are (InternProducts' product images), and the command line's settings.
public struct SeedContext: Sendable {
    public let folder: SeedDirectory
    public let options: APIOptions

    public init(folder: SeedDirectory, options: APIOptions) {
        self.folder = folder
        self.options = options
    }
}

extension Response {
    /// A flat JSON object of string members in the order given, `/` unescaped.
    public static func json(_ status: Int, _ members: KeyValuePairs<String, String>) -> Response {
        .json(status, JSONWriter.flatObject(Array(members), escapeSlash: false))
    }
}
