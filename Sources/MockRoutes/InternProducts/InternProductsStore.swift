import Foundation
import MockHTTP
import MockKit

/// The InternProducts data: users with their one lifelong token, and the read-only product list
/// with its `/products` answer encoded on first use.
public struct InternProductsState {
    struct User {
        var username: String
        var password: String
        var loginToken: InternProductsToken
    }

    struct Product {
        var title: String
        var description: String
        var tags: [String]
        var date: Int
        /// Standard base64 of the picture file.
        var image: String
    }

    /// Users in registration order (seeded ones first).
    private(set) var users: [User] = []
    /// Users by name, compared byte for byte as the real server's strings were.
    private var placesByName = TaggedRowIndex()
    /// Users by token, every user's filed (a seed user's once read or minted).
    private var placesByToken = TaggedRowIndex()
    private(set) var catalog = InternProductsCatalog([])
    public var changes = StateChanges()

    func user(named username: String) -> User? {
        placesByName.row(hash: Self.nameHash(username)) { users[$0].username.hasSameBytes(as: username) }.map { users[$0] }
    }

    func isLive(token: String) -> Bool {
        guard let token = InternProductsToken(token) else { return false }
        return placesByToken.row(hash: Self.tokenHash(token)) { users[$0].loginToken == token } != nil
    }

    /// Creates the user with a fresh token (docs/apis/internproducts.md#tokens); nil when the name is taken.
    mutating func register(username: String, password: String, at now: Date) -> InternProductsToken? {
        guard file(username, at: users.count) == nil else { return nil }
        return appendMinting(username: username, password: password, at: now)
    }

    /// Appends the user, already filed by name at its place, with the first free token at `now`.
    private mutating func appendMinting(username: String, password: String, at now: Date) -> InternProductsToken {
        let token = InternProductsToken.mint(at: now) { fileToken($0, at: users.count) }
        users.append(User(username: username, password: password, loginToken: token))
        changes.touch(.row("users", "username", .string(username)))
        return token
    }

    /// Files `place` under `username`, unless a user has that name already: then that user's place.
    private mutating func file(_ username: String, at place: Int) -> Int? {
        Self.insert(place, hash: Self.nameHash(username), into: &placesByName, users) { $0.username.hasSameBytes(as: username) }
    }

    /// Files the token of the user at `place` (who may be the next one, not appended yet); false
    /// when another user has it.
    private mutating func fileToken(_ token: InternProductsToken, at place: Int) -> Bool {
        Self.insert(place, hash: Self.tokenHash(token), into: &placesByToken, users) { $0.loginToken == token } == nil
    }

    /// `index.insert` matching `users`, which are passed rather than copied into a local: a copy
    /// costs a retain and a release for every user a seed files.
    private static func insert(_ place: Int, hash: UInt32, into index: inout TaggedRowIndex, _ users: [User],
                               where matches: (User) -> Bool) -> Int? {
        index.insert(place, hash: hash) { matches(users[$0]) }
    }

    private static func nameHash(_ name: String) -> UInt32 {
        var name = name
        return name.withUTF8(KeyHash.of)
    }

    private static func tokenHash(_ token: InternProductsToken) -> UInt32 { KeyHash.of(bytesOf: token.micros) }
}

// MARK: Seed format

extension InternProductsState {
    static let earliestDate = 1_609_459_200 // 2021-01-01T00:00:00Z
    static let latestDate = 1_672_531_199 // 2022-12-31T23:59:59Z

    /// Reads and checks a seed or state document (docs/apis/internproducts.md#seed-reset-and-state). Users without a `loginToken` get
    /// one minted at `now`. An `image` is standard base64 or a `.png`, `.jpg` or `.jpeg` path relative
    /// to `imageFolder` (the shipped `Seed/internproducts/`); base64 never contains a `.`, so the two
    /// forms cannot be confused.
    init(seed document: SeedJSON, imageFolder: URL, now: Date) throws(SeedError) {
        // Reading a seed is no change: nothing is recorded meanwhile.
        changes.isRecording = false
        defer { changes = StateChanges() }
        var loaded: [(product: Product, offset: Int)] = []
        // Titles compare as Swift strings (canonical equivalence), as they always did here.
        var titles: [String: Int] = [:], dates: [Int: Int] = [:]
        var anyUnminted = false
        // Users are appended uncounted, into room for as many as the document could hold: room
        // costs address space, not memory, until rows fill it, and nothing is copied as they come.
        users.reserveCapacity(document.bytes.count / Self.smallestUserJSON.utf8.count)
        try document.read { root throws(SeedError) in
            try root.members(Keys.root) { key, value throws(SeedError) in
                if key == 0 {
                    try value.elements { item throws(SeedError) in anyUnminted = try readUser(&item) || anyUnminted }
                } else {
                    try value.elements { item throws(SeedError) in
                        let product = try Self.product(&item, imageFolder: imageFolder)
                        if let twin = titles.updateValue(loaded.count, forKey: product.title) {
                            throw SeedError(path: item.path(of: item.offset) + ".title",
                                            problem: "\"\(product.title)\" is also \(item.path(of: loaded[twin].offset))'s title")
                        }
                        if let twin = dates.updateValue(loaded.count, forKey: product.date) {
                            throw SeedError(path: item.path(of: item.offset) + ".date",
                                            problem: "\(product.date) is also \(item.path(of: loaded[twin].offset))'s date")
                        }
                        loaded.append((product, item.offset))
                    }
                }
            }
        }
        if anyUnminted { mintMissingTokens(at: now) }
        catalog = InternProductsCatalog(loaded.map(\.product).sorted { $0.date > $1.date })
    }

    private static let smallestUserJSON = #"{"username":"u","password":"p"}"#

    /// One user, appended as read, so that a later row with its name is the duplicate; true when
    /// it has no token yet (its `loginToken` is `unminted` until `mintMissingTokens`).
    private mutating func readUser(_ item: inout SeedReader) throws(SeedError) -> Bool {
        var username = "", password = "", token = InternProductsToken.unminted
        try item.members(Keys.user) { key, value throws(SeedError) in
            switch key {
            case 0:
                username = try value.text()
                if file(username, at: users.count) != nil { throw value.fail("duplicate username \(username)") }
            case 1: password = try value.text()
            default:
                let text = try value.string()
                guard let given = InternProductsToken(text), given.isWellFormed else {
                    throw value.fail("expected seconds since 2001 with six decimals, the last not 0, e.g. 668961808.772846")
                }
                guard fileToken(given, at: users.count) else { throw value.fail("duplicate loginToken \(text)") }
                token = given
            }
        }
        users.append(User(username: username, password: password, loginToken: token))
        return token == .unminted
    }

    /// Users given a token stay first, in document order; those without one follow, in document
    /// order, each minted a token once every given one is known, so none collides with a later user's.
    private mutating func mintMissingTokens(at now: Date) {
        let read = users
        users.removeAll(keepingCapacity: true)
        placesByName = TaggedRowIndex()
        placesByToken = TaggedRowIndex()
        for user in read where user.loginToken != .unminted {
            _ = file(user.username, at: users.count)
            _ = fileToken(user.loginToken, at: users.count)
            users.append(user)
        }
        for user in read where user.loginToken == .unminted {
            _ = file(user.username, at: users.count)
            _ = appendMinting(username: user.username, password: user.password, at: now)
        }
    }

    private enum Keys {
        static let root = SeedKeys(["users", "products"])
        static let user = SeedKeys(["username", "password"], optional: ["loginToken"])
        static let product = SeedKeys(["title", "description", "tags", "date", "image"])
    }

    /// One product, checked against docs/apis/internproducts.md#endpoints.
    private static func product(_ item: inout SeedReader, imageFolder folder: URL) throws(SeedError) -> Product {
        var product = Product(title: "", description: "", tags: [], date: 0, image: "")
        try item.members(Keys.product) { key, value throws(SeedError) in
            switch key {
            case 0:
                product.title = try value.string()
                guard !product.title.isEmpty, product.title.count <= 60, !product.title.unicodeScalars.contains(where: isControl) else {
                    throw value.fail("expected one line of 1 to 60 characters")
                }
            case 1:
                let description = try value.string()
                let lines = description.split(separator: "\n", omittingEmptySubsequences: false)
                guard (200...1500).contains(description.count), lines.count >= 3,
                      lines.allSatisfy({ !$0.isEmpty && !$0.unicodeScalars.contains(where: isControl) }) else {
                    throw value.fail("expected 200 to 1500 characters in at least 3 non-empty lines joined by \\n")
                }
                product.description = description
            case 2:
                try value.elements { tagValue throws(SeedError) in
                    let tag = try tagValue.string()
                    guard isTag(tag) else { throw tagValue.fail("expected lower-case words joined by -, e.g. gluten-free") }
                    guard !product.tags.contains(tag) else { throw tagValue.fail("duplicate tag \(tag)") }
                    product.tags.append(tag)
                }
                guard (2...5).contains(product.tags.count) else { throw value.fail("expected 2 to 5 tags") }
            case 3:
                product.date = try value.int()
                guard (earliestDate...latestDate).contains(product.date) else {
                    throw value.fail("expected UNIX seconds in 2021 or 2022 (\(earliestDate)...\(latestDate))")
                }
            default:
                product.image = try image(&value, imageFolder: folder)
            }
        }
        return product
    }

    /// The picture as canonical standard base64, after checking that it is a whole PNG or JPEG.
    private static func image(_ node: inout SeedReader, imageFolder folder: URL) throws(SeedError) -> String {
        let text = try node.string()
        let bytes: [UInt8]
        if [".png", ".jpg", ".jpeg"].contains(where: { text.lowercased().hasSuffix($0) }) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard !text.hasPrefix("/"), !parts.contains("..") else {
                throw node.fail("expected a path inside \(folder.path)")
            }
            let file = folder.appendingPathComponent(text)
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw node.fail("cannot read \(file.path)")
            }
            bytes = Array(data)
        } else {
            // Decoding and re-encoding must give the text back: standard alphabet, padding, no spaces.
            guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else {
                throw node.fail("expected standard base64 of a PNG or JPEG file")
            }
            bytes = Array(data)
        }
        if let problem = InternProductsPicture.problem(bytes) { throw node.fail(problem) }
        return Data(bytes).base64EncodedString()
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }

    /// `^[a-z]+(-[a-z]+)*$`
    private static func isTag(_ tag: String) -> Bool {
        let words = tag.split(separator: "-", omittingEmptySubsequences: false)
        return words.allSatisfy { word in !word.isEmpty && word.utf8.allSatisfy { $0 >= 0x61 && $0 <= 0x7A } }
    }
}

/// The seed file's shape, written by `GET /_mock/state/internproducts`: images inlined as base64,
/// products newest first, every user with its token.
struct InternProductsSeedFile: Encodable {
    struct User: Encodable {
        var username: String, password: String, loginToken: String

        init(_ user: InternProductsState.User) {
            (username, password, loginToken) = (user.username, user.password, user.loginToken.text)
        }
    }
    struct Product: Encodable {
        var title: String, description: String, tags: [String], date: Int, image: String
    }

    var users: [User]
    var products: [Product]

    init(_ state: InternProductsState) {
        users = state.users.map(User.init)
        products = state.catalog.products.map { Product(title: $0.title, description: $0.description, tags: $0.tags,
                                                date: $0.date, image: $0.image) }
    }
}

extension InternProductsState: TouchedState {
    public func seedRow(at path: RowPath) -> [UInt8]? {
        guard path.steps[0].member == "users", case let .string(username)? = path.steps[0].key,
              let user = user(named: username) else { return nil }
        return OrderedJSON.encode(InternProductsSeedFile.User(user), escapeSlash: false)
    }

}

// MARK: Tokens

/// A login token (docs/apis/internproducts.md#tokens): seconds since 2001-01-01 UTC with six
/// decimals, the last never 0, so that a client's `Double` prints the same text back. Kept as the
/// whole number of microseconds, which its text spells in exactly one way.
struct InternProductsToken: Equatable {
    let micros: Int

    /// What a seed user without a token holds until one is minted: no text parses to it as a
    /// live token, since none is ever minted or filed.
    static let unminted = InternProductsToken(micros: 0)

    init(micros: Int) {
        self.micros = micros
    }

    /// The token whose text (`text`) is `text`; nil for any other text, a zero before the other
    /// digits or more than twelve digits before the point included.
    init?(_ text: String) {
        guard let micros = text.utf8.withContiguousStorageIfAvailable(Self.micros) ?? Array(text.utf8).withUnsafeBufferPointer(Self.micros) else {
            return nil
        }
        self.micros = micros
    }

    private static func micros(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard (8...19).contains(bytes.count) else { return nil }
        let point = bytes.count - 7
        guard point == 1 || bytes[0] != UInt8(ascii: "0"), bytes[point] == UInt8(ascii: ".") else { return nil }
        var micros = 0
        for position in bytes.indices where position != point {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            micros = micros * 10 + Int(digit)
        }
        return micros
    }

    /// `^[1-9][0-9]{8,9}\.[0-9]{5}[1-9]$`: what a seed's token must look like. One ending in 0 is
    /// never minted.
    var isWellFormed: Bool {
        Self.wellFormedMicros.contains(micros) && micros % 10 != 0
    }

    /// From 2004-03-03 09:46:40 UTC (nine digits of seconds) to the year 2317 (ten).
    private static let wellFormedMicros = 100_000_000_000_000..<10_000_000_000_000_000

    /// `668961808.772846` for 668,961,808,772,846 µs.
    var text: String {
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    /// The first microsecond at or after `now` whose last digit is not 0 and that `claim` takes
    /// (false: it is taken already), as a token. A clock outside the years a token can name mints
    /// from the nearest of them: a board or VM that booted without a real-time clock reads 1970,
    /// where a token would be negative.
    static func mint(at now: Date, claim: (InternProductsToken) -> Bool) -> InternProductsToken {
        // Rounded, not truncated: a Double a hair below a whole microsecond still names it.
        let clock = (now.timeIntervalSinceReferenceDate * 1_000_000).rounded()
        let latest = wellFormedMicros.upperBound - 1_000_000  // a second's room to move forward
        var micros = clock < Double(wellFormedMicros.lowerBound) ? wellFormedMicros.lowerBound
            : clock >= Double(latest) ? latest : Int(clock)
        while true {
            if micros % 10 != 0, claim(InternProductsToken(micros: micros)) { return InternProductsToken(micros: micros) }
            micros += 1
        }
    }
}

// MARK: Products

/// The product list, read-only once loaded, and its `/products` SUCCESS body, written on first
/// use: the seed and every state made from it share one catalog, so the body (base64 pictures,
/// a few hundred kilobytes) is written once per list, neither at start-up nor per request.
final class InternProductsCatalog: @unchecked Sendable {
    /// Newest first.
    let products: [InternProductsState.Product]
    private let lock = NSLock()
    private var encodedBody: [UInt8]?

    init(_ products: [InternProductsState.Product]) {
        self.products = products
    }

    var body: [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        if let encodedBody { return encodedBody }
        let shapes = products.map { product in
            InternProductsAPI.ProductShape(tags: product.tags, title: product.title, image: product.image,
                                           description: product.description, date: product.date)
        }
        let body = OrderedJSON.encode(InternProductsAPI.ProductList(products: shapes), escapeSlash: true)
        encodedBody = body
        return body
    }
}

// MARK: Reload

extension InternProductsState: TokenCarrying {
    public var liveTokenOwners: [(token: String, user: String)] {
        users.map { ($0.loginToken.text, $0.username) }
    }

    /// A user's one lifelong token is the one the seed gives (or mints): a live token the
    /// reloaded seed does not give ends.
    public mutating func keepLiveToken(_ token: String, of user: String, from old: InternProductsState) -> Bool {
        false
    }
}
