import Foundation
import MockHTTP
import MockKit

/// The threads API's data: users, threads, messages, live tokens and the id counters, as the seed
/// document has them (docs/apis/threads.md#accounts). Rows are found by id, users by email in any
/// letter case, and one thread's messages without looking at the others, so a request costs the
/// same with 10 threads or 100,000.
public struct ThreadsState: StoredState {
    struct User: TableRow {
        var id: Int
        var email: String
        var password: String
        var fname: String
        var lname: String
        var role = "USER"

        static let keyField = "user_id"
        var key: Int { id }
    }

    struct Thread: TableRow {
        var id: Int
        var userID: Int
        var title: String
        var createdAt: Stamp

        static let keyField = "thread_id"
        var key: Int { id }
    }

    struct Message: TableRow {
        var id: Int
        var threadID: Int
        var userID: Int
        var text: String
        var createdAt: Stamp

        static let keyField = "message_id"
        var key: Int { id }
    }

    struct Token: TableRow {
        var token: ExactText
        var userID: Int
        var expires: Int
        /// Set once the token listed threads through `GET /api/thread`: it belongs to a 2017–2018
        /// app, which gets the flat shape on every answer from then on.
        var isLegacy = false

        static let keyField = "token"
        var key: ExactText { token }
    }

    /// The next id of each table: counters only ever move forward, so ids of deleted rows are
    /// never handed out again.
    struct NextIDs: SeedRow {
        var user = 1
        var thread = 1
        var message = 1
    }

    /// Emails are unique whatever their letter case (`lowercased()`), and otherwise compared byte for byte.
    private(set) var users = Table<User>(indexes: [.unique(\.email, field: "email", folding: { $0.lowercasedIfNeeded() })])
    private(set) var threads = Table<Thread>()
    private(set) var messages = Table<Message>(indexes: [.grouped(\.threadID, field: "thread_id")])
    private(set) var tokens = Table<Token>()
    private(set) var nextIDs = Recorded(NextIDs())
    /// The tokens logins issued, which end oldest first past a limit (docs/apis/threads.md#tokens).
    private var issuedTokens = IssuedTokens()

    public init() {}

    public static let format = SeedFormat<ThreadsState>(
        .table("users", \.users, order: { $0.id < $1.id }),
        .table("threads", \.threads, order: { $0.id < $1.id }, check: { thread, state in
            state.users.contains(thread.userID) ? nil : .row("user_id \(thread.userID) is not a user")
        }),
        .table("messages", \.messages, order: { $0.id < $1.id }, check: { message, state in
            if !state.threads.contains(message.threadID) { return .row("thread_id \(message.threadID) is not a thread") }
            return state.users.contains(message.userID) ? nil : .row("user_id \(message.userID) is not a user")
        }),
        // A document's tokens are never ended by the limit on issued ones.
        .table("tokens", \.tokens, optional: true, order: { $0.token.string.utf8.lexicographicallyPrecedes($1.token.string.utf8) },
               check: { token, state in state.users.contains(token.userID) ? nil : .row("user_id \(token.userID) is not a user") }),
        .value("next_ids", \.nextIDs, optional: true)
    )

    /// Each counter is past the highest id of its table, whatever the document said.
    public mutating func finishReading() {
        nextIDs.value.user = max((users.last?.id ?? 0) + 1, nextIDs.value.user)
        nextIDs.value.thread = max((threads.last?.id ?? 0) + 1, nextIDs.value.thread)
        nextIDs.value.message = max((messages.last?.id ?? 0) + 1, nextIDs.value.message)
    }

    func user(email: String) -> User? { users.row(where: "email", is: email) }

    /// A thread's messages, oldest (lowest id) first.
    func messages(inThread id: Int) -> [Message] { messages.rows(where: "thread_id", is: id) }

    /// Adds a user with the next user id, which is above every earlier one; the email is not taken.
    mutating func addUser(email: String, password: String, fname: String, lname: String) throws(ThreadsError) -> User {
        let user = User(id: try Self.take(&nextIDs.value.user, "user"), email: email, password: password, fname: fname, lname: lname)
        users.insert(user)
        return user
    }

    /// Adds a thread with the next thread id, which is above every earlier one.
    mutating func addThread(userID: Int, title: String, createdAt: Stamp) throws(ThreadsError) -> Thread {
        let thread = Thread(id: try Self.take(&nextIDs.value.thread, "thread"), userID: userID, title: title, createdAt: createdAt)
        threads.insert(thread)
        return thread
    }

    /// Adds a message, to an existing thread, with the next message id, which is above every earlier one.
    mutating func addMessage(threadID: Int, userID: Int, text: String, createdAt: Stamp) throws(ThreadsError) -> Message {
        let id = try Self.take(&nextIDs.value.message, "message")
        let message = Message(id: id, threadID: threadID, userID: userID, text: text, createdAt: createdAt)
        messages.insert(message)
        return message
    }

    /// The id `next` holds, which then moves on by one. The largest integer is never an id (no row
    /// may have it), so a counter that reaches it has no id left: the create fails, as a database
    /// refuses an insert past its last id, and nothing changes.
    private static func take(_ next: inout Int, _ table: String) throws(ThreadsError) -> Int {
        guard next < Int.max else { throw .idsUsedUp(table: table) }
        defer { next += 1 }
        return next
    }

    /// Removes a thread and its messages.
    mutating func removeThread(_ id: Int) {
        for message in messages(inThread: id) { messages.remove(message.id) }
        threads.remove(id)
    }

    mutating func removeMessage(_ id: Int) {
        messages.remove(id)
    }

    /// A login's new token; past `limit` issued ones, the oldest issued stops working.
    mutating func issueToken(_ token: String, userID: Int, expires: Int, limit: Int) {
        tokens.insert(Token(token: ExactText(token), userID: userID, expires: expires))
        if let ended = issuedTokens.record(token, limit: limit) { tokens.remove(ExactText(ended)) }
    }

    /// From now on the token's answers use the flat 2017–2018 shape (a forgotten token: nothing to do).
    mutating func markLegacy(token: ExactText) {
        tokens.update(token) { $0.isLegacy = true }
    }

    func creator(_ userID: Int) -> Creator {
        let owner = users[userID]
        return Creator(fname: owner?.fname ?? "", lname: owner?.lname ?? "", userID: userID)
    }

    func shape(_ thread: Thread) -> ThreadShape {
        ThreadShape(createdBy: creator(thread.userID), threadID: thread.id, title: thread.title, createdAt: thread.createdAt.text)
    }

    func shape(_ message: Message) -> MessageShape {
        MessageShape(createdBy: creator(message.userID), messageID: message.id, message: message.text, createdAt: message.createdAt.text)
    }

    func legacyShape(_ thread: Thread) -> LegacyShape {
        LegacyShape(id: thread.id, creator: creator(thread.userID), text: .title(thread.title), createdAt: thread.createdAt.text)
    }

    func legacyShape(_ message: Message) -> LegacyShape {
        LegacyShape(id: message.id, creator: creator(message.userID), text: .message(message.text), createdAt: message.createdAt.text)
    }
}

// MARK: Seed format (docs/apis/threads.md#accounts)

extension ThreadsState.User {
    init(seed row: SeedFields) throws(SeedError) {
        id = try row.value("user_id", rowID)
        email = try row.text("email")
        password = try row.text("password")
        fname = try row.text("fname")
        lname = try row.text("lname")
        role = try row.optional("role") { value throws(SeedError) in try value.string() } ?? "USER"
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("user_id", id)
        seed.field("email", email)
        seed.field("password", password)
        seed.field("fname", fname)
        seed.field("lname", lname)
        seed.field("role", role)
    }
}

extension ThreadsState.Thread {
    init(seed row: SeedFields) throws(SeedError) {
        id = try row.value("thread_id", rowID)
        userID = try row.int("user_id")
        title = try row.text("title")
        createdAt = try row.value("created_at", Stamp.init(seed:))
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("thread_id", id)
        seed.field("user_id", userID)
        seed.field("title", title)
        seed.field("created_at", createdAt.text)
    }
}

extension ThreadsState.Message {
    init(seed row: SeedFields) throws(SeedError) {
        id = try row.value("message_id", rowID)
        threadID = try row.int("thread_id")
        userID = try row.int("user_id")
        text = try row.text("message")
        createdAt = try row.value("created_at", Stamp.init(seed:))
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("message_id", id)
        seed.field("thread_id", threadID)
        seed.field("user_id", userID)
        seed.field("message", text)
        seed.field("created_at", createdAt.text)
    }
}

extension ThreadsState.Token {
    init(seed row: SeedFields) throws(SeedError) {
        token = ExactText(try row.text("token"))
        userID = try row.int("user_id")
        expires = try row.int("exp")
        isLegacy = try row.optional("legacy") { value throws(SeedError) in try value.bool() } ?? false
    }

    /// `legacy` is written only when true, so state files without 2017–2018 sessions stay as they were.
    func write(to seed: inout SeedFieldWriter) {
        seed.field("token", token.string)
        seed.field("user_id", userID)
        seed.field("exp", expires)
        if isLegacy { seed.field("legacy", true) }
    }
}

extension ThreadsState.NextIDs {
    init(seed row: SeedFields) throws(SeedError) {
        user = try row.int("user")
        thread = try row.int("thread")
        message = try row.int("message")
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("user", user)
        seed.field("thread", thread)
        seed.field("message", message)
    }
}

/// A row's own id: any integer but the largest, after which there would be no next id.
private func rowID(_ value: inout SeedReader) throws(SeedError) -> Int {
    let id = try value.int()
    guard id < Int.max else { throw value.fail("must be below \(Int.max)") }
    return id
}

// MARK: Tokens

/// Mints the JWT-shaped tokens (docs/apis/threads.md#endpoints). The signature is random: tokens are validated by
/// looking the whole string up, which is also what makes a reset invalidate them.
enum ThreadsToken {
    static let header = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9"
    static let lifetime = 31_536_000

    static func mint(userID: Int, issuedAt: Int, random: RandomStream) -> String {
        let payload = "{\"iat\":\(issuedAt),\"exp\":\(issuedAt + lifetime),\"jti\":\"\(jti(random))\",\"user\":\(userID)}"
        return TokenParts.jwt(header: header, payload: Array(payload.utf8), random: random)
    }

    /// 16 random bytes written in base 62, left-padded with `0` to 22 characters.
    static func jti(_ random: RandomStream) -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var number = random.bytes(16)
        var digits: [Character] = []
        while number.contains(where: { $0 != 0 }) {
            var remainder = 0
            for index in number.indices {
                let value = remainder * 256 + Int(number[index])
                number[index] = UInt8(value / 62)
                remainder = value % 62
            }
            digits.append(alphabet[remainder])
        }
        let text = String(digits.reversed())
        return String(repeating: "0", count: max(0, 22 - text.count)) + text
    }
}

// MARK: Reload

extension ThreadsState: TokenCarrying {
    public var liveTokenOwners: [(token: String, user: String)] {
        tokens.rows.map { ($0.token.string, String($0.userID)) }
    }

    /// The token keeps its expiry and shape; it counts as issued, so the bound on issued tokens
    /// still holds across reloads.
    public mutating func keepLiveToken(_ token: String, of user: String, from old: ThreadsState) -> Bool {
        guard let id = Int(user), users.contains(id), let row = old.tokens[ExactText(token)] else { return false }
        tokens.insert(row)
        _ = issuedTokens.record(token, limit: .max)
        return true
    }
}
