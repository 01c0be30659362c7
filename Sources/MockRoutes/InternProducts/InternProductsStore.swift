import Foundation
import MockHTTP
import MockKit
import MockSupport

/// The InternProducts data: users with their one lifelong token, and the read-only product list
/// with its `/products` answer encoded on first use (docs/apis/internproducts.md#seed-reset-and-state).
public struct InternProductsState: StoredState {
    struct User: TableRow {
        var username: String
        var password: String
        /// Any non-empty text (clients keep it as a string); nil only while a seed user waits for
        /// one to be minted.
        var loginToken: String?

        static let keyField = "username"
        var key: ExactText { ExactText(username) }
    }

    /// Also its `/products` shape, keys in declaration order.
    struct Product: SeedRow, Encodable {
        var tags: [String]
        var title: String
        /// Standard base64 of the picture file.
        var image: String
        var description: String
        /// UNIX seconds.
        var date: Int
    }

    /// Users in registration order (seeded ones with a token first); names and tokens compare
    /// byte for byte, as the real server's strings did.
    private(set) var users = Table<User>(indexes: [.unique(\.loginToken, field: "loginToken")])
    private(set) var catalog = InternProductsCatalog([])
    /// Where a document's picture files are (the shipped `Seed/internproducts/`), and the clock
    /// that mints the tokens it lacks.
    private var imageFolder = URL(fileURLWithPath: "/")
    private var now = Date()

    public init() {}

    init(imageFolder: URL, now: Date) {
        (self.imageFolder, self.now) = (imageFolder, now)
    }

    public static let format = SeedFormat<InternProductsState>(
        .table("users", \.users, duplicates: .atField),
        .fixed("products", read: { state, array throws(SeedError) in try state.readProducts(&array) }, rows: { $0.catalog.products })
    )

    func user(named username: String) -> User? { users[ExactText(username)] }

    func isLive(token: String) -> Bool { users.row(where: "loginToken", is: token) != nil }

    /// Creates the user, whose name is free, with the first free token from `micros` on
    /// (docs/apis/internproducts.md#tokens), leaving `micros` at it.
    mutating func register(username: String, password: String, from micros: inout Int) -> String {
        let token = InternProductsToken.mint(from: &micros) { !isLive(token: $0) }
        users.insert(User(username: username, password: password, loginToken: token))
        return token
    }

    /// Users without a token follow those with one, in document order, each minted a token once
    /// every given one is known, so none collides with a later user's. Each search starts at the
    /// token minted before, every microsecond before which is taken: linear, not quadratic.
    public mutating func finishReading() {
        var micros = InternProductsToken.micros(at: now)
        for user in users.rows.filter({ $0.loginToken == nil }) {
            users.remove(user.key)
            _ = register(username: user.username, password: user.password, from: &micros)
        }
    }
}

// MARK: Seed format

extension InternProductsState.User {
    init(seed row: SeedFields) throws(SeedError) {
        username = try row.text("username")
        password = try row.text("password")
        loginToken = try row.optional("loginToken") { value throws(SeedError) in try value.text() }
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("username", username)
        seed.field("password", password)
        if let loginToken { seed.field("loginToken", loginToken) }
    }
}

extension InternProductsState.Product {
    /// One product, checked against docs/apis/internproducts.md#endpoints; the image is read by the state,
    /// which knows where pictures may come from.
    init(seed row: SeedFields) throws(SeedError) {
        typealias State = InternProductsState
        title = try row.string("title", where: { title in
            !title.isEmpty && title.count <= 60 && !title.unicodeScalars.contains(where: State.isControl)
        }, else: "expected one line of 1 to 60 characters")
        description = try row.string("description", where: { description in
            let lines = description.split(separator: "\n", omittingEmptySubsequences: false)
            return (200...1500).contains(description.count) && lines.count >= 3
                && lines.allSatisfy { !$0.isEmpty && !$0.unicodeScalars.contains(where: State.isControl) }
        }, else: "expected 200 to 1500 characters in at least 3 non-empty lines joined by \\n")
        tags = try row.value("tags") { value throws(SeedError) in
            var tags: [String] = []
            try value.elements { tagValue throws(SeedError) in
                let tag = try tagValue.string()
                guard State.isTag(tag) else { throw tagValue.fail("expected lower-case words joined by -, e.g. gluten-free") }
                guard !tags.contains(tag) else { throw tagValue.fail("duplicate tag \(tag)") }
                tags.append(tag)
            }
            guard (2...5).contains(tags.count) else { throw value.fail("expected 2 to 5 tags") }
            return tags
        }
        date = try row.int("date", where: (State.earliestDate...State.latestDate).contains,
                           else: "expected UNIX seconds in 2021 or 2022 (\(State.earliestDate)...\(State.latestDate))")
        image = ""
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("title", title)
        seed.field("description", description)
        seed.field("tags", tags)
        seed.field("date", date)
        seed.field("image", image)
    }
}

extension InternProductsState {
    static let earliestDate = 1_609_459_200 // 2021-01-01T00:00:00Z
    static let latestDate = 1_672_531_199 // 2022-12-31T23:59:59Z

    /// The products, newest first in the catalog; no two share a title or a date.
    private mutating func readProducts(_ array: inout SeedReader) throws(SeedError) {
        var loaded: [(product: Product, offset: Int)] = []
        // Titles compare as Swift strings (canonical equivalence), as they always did here.
        var titles: [String: Int] = [:], dates: [Int: Int] = [:]
        try array.elements { item throws(SeedError) in
            let fields = try SeedFields(&item)
            var product = try Product(seed: fields)
            product.image = try fields.value("image") { value throws(SeedError) in try Self.image(&value, imageFolder: imageFolder) }
            if let twin = titles.updateValue(loaded.count, forKey: product.title) {
                throw fields.fail("title", "\"\(product.title)\" is also \(item.path(of: loaded[twin].offset))'s title")
            }
            if let twin = dates.updateValue(loaded.count, forKey: product.date) {
                throw fields.fail("date", "\(product.date) is also \(item.path(of: loaded[twin].offset))'s date")
            }
            loaded.append((product, item.offset))
        }
        catalog = InternProductsCatalog(loaded.map(\.product).sorted { $0.date > $1.date })
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
            if let realName = differentlyCased(parts, in: folder) {
                throw node.fail("\(text) differs in letter case from the file's real name \(realName)")
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

    /// The real path of a file that `parts` name in another letter case, or nil. A Mac's disk ignores
    /// case and Linux's does not, so such a path is refused everywhere, the seed working alike on both.
    private static func differentlyCased(_ parts: [Substring], in folder: URL) -> String? {
        var real: [String] = []
        var current = folder
        for part in parts.map(String.init) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: current.path)) ?? []
            // Missing in every case: reading the file says so.
            guard let name = names.contains(part) ? part : names.first(where: { $0.lowercased() == part.lowercased() })
            else { return nil }
            real.append(name)
            current.appendPathComponent(name)
        }
        return real.elementsEqual(parts.map(String.init)) ? nil : real.joined(separator: "/")
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }

    /// `^[a-z]+(-[a-z]+)*$`
    static func isTag(_ tag: String) -> Bool {
        let words = tag.split(separator: "-", omittingEmptySubsequences: false)
        return words.allSatisfy { word in !word.isEmpty && word.utf8.allSatisfy { $0 >= 0x61 && $0 <= 0x7A } }
    }
}

// MARK: Tokens

/// The tokens this server mints (docs/apis/internproducts.md#tokens): seconds since 2001-01-01 UTC
/// with six decimals, the last never 0, so that a client's `Double` prints the same text back.
enum InternProductsToken {
    /// From 2004-03-03 09:46:40 UTC (nine digits of seconds) to the year 2317 (ten), in microseconds.
    private static let mintedMicros = 100_000_000_000_000..<10_000_000_000_000_000

    /// `668961808.772846` for 668,961,808,772,846 µs.
    static func text(micros: Int) -> String {
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    /// The microsecond minting at `now` starts from. A clock outside the years a token can name
    /// mints from the nearest of them: a board or VM that booted without a real-time clock reads
    /// 1970, where a token would be negative.
    static func micros(at now: Date) -> Int {
        // Rounded, not truncated: a Double a hair below a whole microsecond still names it.
        let clock = (now.timeIntervalSinceReferenceDate * 1_000_000).rounded()
        let latest = mintedMicros.upperBound - 1_000_000  // a second's room to move forward
        return clock < Double(mintedMicros.lowerBound) ? mintedMicros.lowerBound
            : clock >= Double(latest) ? latest : Int(clock)
    }

    /// The first microsecond from `micros` on whose last digit is not 0 and whose text `isFree`,
    /// as a token; `micros` is left at it.
    static func mint(from micros: inout Int, isFree: (String) -> Bool) -> String {
        while micros % 10 == 0 || !isFree(text(micros: micros)) { micros += 1 }
        return text(micros: micros)
    }
}

// MARK: Products

/// The product list, read-only once loaded, and its `/products` SUCCESS body, written on first
/// use: the seed and every state made from it share one catalog, so the body (base64 pictures,
/// a few hundred kilobytes) is written once per list, neither at start-up nor per request.
final class InternProductsCatalog: Sendable {
    /// Newest first.
    let products: [InternProductsState.Product]
    private let encodedBody = Locked<[UInt8]?>(nil)

    init(_ products: [InternProductsState.Product]) {
        self.products = products
    }

    var body: [UInt8] {
        encodedBody.withLock { body in
            let encoded = body ?? OrderedJSON.encode(InternProductsAPI.ProductList(products: products), escapeSlash: true)
            body = encoded
            return encoded
        }
    }
}

// MARK: Reload

extension InternProductsState: TokenCarrying {
    public var liveTokenOwners: [(token: String, user: String)] {
        users.rows.compactMap { user in user.loginToken.map { ($0, user.username) } }
    }

    /// A user's one lifelong token is the one the seed gives (or mints): a live token the
    /// reloaded seed does not give ends.
    public mutating func keepLiveToken(_ token: String, of user: String, from old: InternProductsState) -> Bool {
        false
    }
}
