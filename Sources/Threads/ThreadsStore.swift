import Foundation
import MockHTTP
import MockKit

/// The threads API's data: users, threads, messages, live tokens and the id counters.
///
/// Rows are found by id in O(1) and one thread's messages without looking at the others, so a
/// request costs the same with 10 threads or 100,000. Users, threads and messages change only
/// through the methods below, which keep the lookups in step.
public struct ThreadsState {
    struct User: Identifiable {
        var id: Int
        var email: String
        var password: String
        var fname: String
        var lname: String
        var role: String
    }

    struct Thread: Identifiable {
        var id: Int
        var userID: Int
        var title: String
        var createdAt: String
    }

    struct Message: Identifiable {
        var id: Int
        var threadID: Int
        var userID: Int
        var text: String
        var createdAt: String
    }

    struct Token {
        var userID: Int
        var expires: Int
        /// Set once the token listed threads through `GET /api/thread`: it belongs to a 2017–2018
        /// app, which gets the flat shape on every answer from then on.
        var isLegacy = false
    }

    private(set) var users = IDTable<User>()
    private(set) var threads = IDTable<Thread>()
    private(set) var messages = IDTable<Message>()
    /// Lowercased email to user id: emails are unique whatever their letter case, and otherwise
    /// compared byte for byte.
    private var userIDByEmail: [ExactText: Int] = [:]
    /// Each thread's message ids, ascending.
    private var messageIDsByThread: [Int: [Int]] = [:]
    private(set) var tokens: [ExactText: Token] = [:]
    /// The tokens logins issued, which end oldest first past a limit (docs/apis/threads.md#tokens).
    private var issuedTokens = IssuedTokens()
    var nextUserID = 1
    var nextThreadID = 1
    var nextMessageID = 1
    public var changes = StateChanges()

    func user(_ id: Int) -> User? { users[id] }

    func user(email: String) -> User? { userIDByEmail[ExactText(email.lowercased())].flatMap { users[$0] } }

    func thread(_ id: Int) -> Thread? { threads[id] }

    func message(_ id: Int) -> Message? { messages[id] }

    /// A thread's messages, ascending id.
    func messages(inThread id: Int) -> [Message] {
        (messageIDsByThread[id] ?? []).compactMap { messages[$0] }
    }

    /// Adds a user whose id is above every earlier one.
    mutating func add(_ user: User) {
        users.append(user)
        userIDByEmail[ExactText(user.email.lowercased())] = user.id
        changes.touch(.row("users", "user_id", .int(user.id)))
        changes.touch(.member("next_ids"))
    }

    /// Adds a thread whose id is above every earlier one.
    mutating func add(_ thread: Thread) {
        threads.append(thread)
        changes.touch(.row("threads", "thread_id", .int(thread.id)))
        changes.touch(.member("next_ids"))
    }

    /// Adds a message, to an existing thread, whose id is above every earlier one.
    mutating func add(_ message: Message) {
        messages.append(message)
        messageIDsByThread[message.threadID, default: []].append(message.id)
        changes.touch(.row("messages", "message_id", .int(message.id)))
        changes.touch(.member("next_ids"))
    }

    /// Removes a thread and its messages.
    mutating func removeThread(_ id: Int) {
        for messageID in messageIDsByThread.removeValue(forKey: id) ?? [] {
            messages.remove(messageID)
            changes.touch(.row("messages", "message_id", .int(messageID)))
        }
        threads.remove(id)
        changes.touch(.row("threads", "thread_id", .int(id)))
    }

    /// A login's new token; past `limit` issued ones, the oldest issued stops working.
    mutating func issueToken(_ token: String, to record: Token, limit: Int) {
        tokens[ExactText(token)] = record
        changes.touch(.row("tokens", "token", .string(token)))
        if let ended = issuedTokens.record(token, limit: limit) {
            tokens[ExactText(ended)] = nil
            changes.touch(.row("tokens", "token", .string(ended)))
        }
    }

    /// From now on the token's answers use the flat 2017–2018 shape (a forgotten token: nothing to do).
    mutating func markLegacy(token: ExactText) {
        guard tokens[token] != nil else { return }
        tokens[token]?.isLegacy = true
        changes.touch(.row("tokens", "token", .string(token.string)))
    }

    mutating func removeMessage(_ id: Int) {
        guard let message = messages.remove(id) else { return }
        messageIDsByThread[message.threadID]?.removeAll { $0 == id }
        changes.touch(.row("messages", "message_id", .int(id)))
    }

    func creator(_ userID: Int) -> Creator {
        let owner = user(userID)
        return Creator(fname: owner?.fname ?? "", lname: owner?.lname ?? "", userID: userID)
    }

    func shape(_ thread: Thread) -> ThreadShape {
        ThreadShape(createdBy: creator(thread.userID), threadID: thread.id, title: thread.title, createdAt: thread.createdAt)
    }

    func shape(_ message: Message) -> MessageShape {
        MessageShape(createdBy: creator(message.userID), messageID: message.id, message: message.text,
                     createdAt: message.createdAt)
    }

    func legacyShape(_ thread: Thread) -> LegacyShape {
        LegacyShape(id: thread.id, creator: creator(thread.userID), text: .title(thread.title), createdAt: thread.createdAt)
    }

    func legacyShape(_ message: Message) -> LegacyShape {
        LegacyShape(id: message.id, creator: creator(message.userID), text: .message(message.text),
                    createdAt: message.createdAt)
    }
}

// MARK: Seed format

extension ThreadsState {
    /// Reads and checks a seed or state document (`Seed/threads.json`, docs/apis/threads.md#accounts).
    init(seed document: SeedJSON) throws(SeedError) {
        // Reading a seed is no change: nothing is recorded meanwhile.
        changes.isRecording = false
        defer { changes = StateChanges() }
        // Checked in document order (so an error names the first bad row), then added by id.
        var seededUsers: [User] = [], seededThreads: [Thread] = [], seededMessages: [Message] = []
        var userIDs: Set<Int> = [], threadIDs: Set<Int> = []
        try document.read { root throws(SeedError) in
            try root.members(Keys.root) { key, value throws(SeedError) in
                switch key {
                case 0: seededUsers = try Self.users(value: &value, ids: &userIDs)
                case 1: seededThreads = try Self.threads(value: &value, ids: &threadIDs, userIDs: userIDs)
                case 2: seededMessages = try Self.messages(value: &value, threadIDs: threadIDs, userIDs: userIDs)
                case 3:
                    try value.elements { item throws(SeedError) in
                        var token = "", record = Token(userID: 0, expires: 0)
                        let row = item.offset
                        try item.members(Keys.token) { key, value throws(SeedError) in
                            switch key {
                            case 0: token = try value.text()
                            case 1:
                                record.userID = try value.int()
                                if !userIDs.contains(record.userID) { throw value.fail(at: row, "user_id \(record.userID) is not a user") }
                            case 2: record.expires = try value.int()
                            default: record.isLegacy = try value.bool()
                            }
                        }
                        // A document's tokens are never ended by the limit on issued ones.
                        tokens[ExactText(token)] = record
                    }
                default:
                    var counters: [Int] = []
                    try value.members(Keys.nextIDs) { _, value throws(SeedError) in counters.append(try value.int()) }
                    // Counters only ever move forward: ids of deleted rows are never handed out again.
                    nextUserID = counters[0]
                    nextThreadID = counters[1]
                    nextMessageID = counters[2]
                }
            }
        }
        let counters = (nextUserID, nextThreadID, nextMessageID)
        users.reserveCapacity(seededUsers.count)
        userIDByEmail.reserveCapacity(seededUsers.count)
        threads.reserveCapacity(seededThreads.count)
        messages.reserveCapacity(seededMessages.count)
        // The sort is stable and linear on rows already in id order, as a saved state's are.
        for user in seededUsers.sorted(by: { $0.id < $1.id }) { add(user) }
        for thread in seededThreads.sorted(by: { $0.id < $1.id }) { add(thread) }
        for message in seededMessages.sorted(by: { $0.id < $1.id }) { add(message) }
        nextUserID = max((users.last?.id ?? 0) + 1, counters.0)
        nextThreadID = max((threads.last?.id ?? 0) + 1, counters.1)
        nextMessageID = max((messages.last?.id ?? 0) + 1, counters.2)
    }

    private enum Keys {
        static let root = SeedKeys(["users", "threads", "messages"], optional: ["tokens", "next_ids"])
        static let user = SeedKeys(["user_id", "email", "password", "fname", "lname"], optional: ["role"])
        static let thread = SeedKeys(["thread_id", "user_id", "title", "created_at"])
        static let message = SeedKeys(["message_id", "thread_id", "user_id", "message", "created_at"])
        static let token = SeedKeys(["token", "user_id", "exp"], optional: ["legacy"])
        static let nextIDs = SeedKeys(["user", "thread", "message"])
    }

    private static func users(value: inout SeedReader, ids: inout Set<Int>) throws(SeedError) -> [User] {
        var users: [User] = [], emails: Set<ExactText> = []
        let count = try value.count()
        users.reserveCapacity(count)
        emails.reserveCapacity(count)
        ids.reserveCapacity(count)
        try value.elements { item throws(SeedError) in
            var user = User(id: 0, email: "", password: "", fname: "", lname: "", role: "USER")
            try item.members(Keys.user) { key, value throws(SeedError) in
                switch key {
                case 0: user.id = try value.int()
                case 1: user.email = try value.text()
                case 2: user.password = try value.text()
                case 3: user.fname = try value.text()
                case 4: user.lname = try value.text()
                default: user.role = try value.string()
                }
            }
            if !ids.insert(user.id).inserted { throw item.fail("duplicate user_id \(user.id)") }
            if !emails.insert(ExactText(user.email.lowercased())).inserted { throw item.fail("duplicate email \(user.email)") }
            users.append(user)
        }
        return users
    }

    private static func threads(value: inout SeedReader, ids: inout Set<Int>, userIDs: Set<Int>) throws(SeedError) -> [Thread] {
        var threads: [Thread] = []
        let count = try value.count()
        threads.reserveCapacity(count)
        ids.reserveCapacity(count)
        try value.elements { item throws(SeedError) in
            var thread = Thread(id: 0, userID: 0, title: "", createdAt: "")
            try item.members(Keys.thread) { key, value throws(SeedError) in
                switch key {
                case 0: thread.id = try value.int()
                case 1: thread.userID = try value.int()
                case 2: thread.title = try value.text()
                default: thread.createdAt = try stamp(&value)
                }
            }
            if !ids.insert(thread.id).inserted { throw item.fail("duplicate thread_id \(thread.id)") }
            if !userIDs.contains(thread.userID) { throw item.fail("user_id \(thread.userID) is not a user") }
            threads.append(thread)
        }
        return threads
    }

    private static func messages(value: inout SeedReader, threadIDs: Set<Int>, userIDs: Set<Int>) throws(SeedError) -> [Message] {
        var messages: [Message] = [], ids: Set<Int> = []
        let count = try value.count()
        messages.reserveCapacity(count)
        ids.reserveCapacity(count)
        try value.elements { item throws(SeedError) in
            var message = Message(id: 0, threadID: 0, userID: 0, text: "", createdAt: "")
            try item.members(Keys.message) { key, value throws(SeedError) in
                switch key {
                case 0: message.id = try value.int()
                case 1: message.threadID = try value.int()
                case 2: message.userID = try value.int()
                case 3: message.text = try value.text()
                default: message.createdAt = try stamp(&value)
                }
            }
            if !ids.insert(message.id).inserted { throw item.fail("duplicate message_id \(message.id)") }
            if !threadIDs.contains(message.threadID) { throw item.fail("thread_id \(message.threadID) is not a thread") }
            if !userIDs.contains(message.userID) { throw item.fail("user_id \(message.userID) is not a user") }
            messages.append(message)
        }
        return messages
    }

    private static func stamp(_ value: inout SeedReader) throws(SeedError) -> String {
        let text = try value.string()
        guard CivilTime(sqlText: text) != nil else { throw value.fail("expected YYYY-MM-DD HH:MM:SS, got \(text)") }
        return text
    }
}

extension ThreadsState: LoggedState {
    public func seedRow(at path: RowPath) -> [UInt8]? {
        let step = path.steps[0]
        switch (step.member, step.key) {
        case let ("users", .int(id)?): return users[id].map { Self.encode(ThreadsSeedFile.User($0)) }
        case let ("threads", .int(id)?): return threads[id].map { Self.encode(ThreadsSeedFile.Thread($0)) }
        case let ("messages", .int(id)?): return messages[id].map { Self.encode(ThreadsSeedFile.Message($0)) }
        case let ("tokens", .string(token)?): return tokens[ExactText(token)].map { Self.encode(ThreadsSeedFile.Token(token, $0)) }
        case ("next_ids", nil): return Self.encode(ThreadsSeedFile.NextIDs(self))
        default: return nil
        }
    }

    private static func encode(_ row: some Encodable) -> [UInt8] { OrderedJSON.encode(row, escapeSlash: false) }
}

/// The seed file's shape, written by `GET /_mock/state/threads`.
struct ThreadsSeedFile: Encodable {
    struct User: Encodable {
        var userID: Int, email: String, password: String, fname: String, lname: String, role: String

        enum CodingKeys: String, CodingKey {
            case userID = "user_id", email, password, fname, lname, role
        }

        init(_ user: ThreadsState.User) {
            (userID, email, password, fname, lname, role) = (user.id, user.email, user.password, user.fname, user.lname, user.role)
        }
    }
    struct Thread: Encodable {
        var threadID: Int, userID: Int, title: String, createdAt: String

        enum CodingKeys: String, CodingKey {
            case threadID = "thread_id", userID = "user_id", title, createdAt = "created_at"
        }

        init(_ thread: ThreadsState.Thread) {
            (threadID, userID, title, createdAt) = (thread.id, thread.userID, thread.title, thread.createdAt)
        }
    }
    struct Message: Encodable {
        var messageID: Int, threadID: Int, userID: Int, message: String, createdAt: String

        enum CodingKeys: String, CodingKey {
            case messageID = "message_id", threadID = "thread_id", userID = "user_id", message, createdAt = "created_at"
        }

        init(_ message: ThreadsState.Message) {
            (messageID, threadID, userID, self.message, createdAt) =
                (message.id, message.threadID, message.userID, message.text, message.createdAt)
        }
    }
    struct Token: Encodable {
        /// Written only when true, so state files without 2017–2018 sessions stay as they were.
        var token: String, userID: Int, exp: Int, legacy: Bool?

        enum CodingKeys: String, CodingKey {
            case token, userID = "user_id", exp, legacy
        }

        init(_ token: String, _ record: ThreadsState.Token) {
            (self.token, userID, exp, legacy) = (token, record.userID, record.expires, record.isLegacy ? true : nil)
        }
    }
    struct NextIDs: Encodable {
        var user: Int, thread: Int, message: Int

        init(_ state: ThreadsState) {
            (user, thread, message) = (state.nextUserID, state.nextThreadID, state.nextMessageID)
        }
    }

    var users: [User]
    var threads: [Thread]
    var messages: [Message]
    var tokens: [Token]
    var nextIDs: NextIDs

    enum CodingKeys: String, CodingKey {
        case users, threads, messages, tokens, nextIDs = "next_ids"
    }

    init(_ state: ThreadsState) {
        users = state.users.rows.map(User.init)
        threads = state.threads.rows.map(Thread.init)
        messages = state.messages.rows.map(Message.init)
        tokens = state.tokens.sorted { $0.key.string.utf8.lexicographicallyPrecedes($1.key.string.utf8) }
            .map { Token($0.key.string, $0.value) }
        nextIDs = NextIDs(state)
    }
}

// MARK: Tokens

/// Mints the JWT-shaped tokens (docs/apis/threads.md#endpoints). The signature is random: tokens are validated by
/// looking the whole string up, which is also what makes a reset invalidate them.
enum ThreadsToken {
    static let header = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9"
    static let lifetime = 31_536_000

    static func mint(userID: Int, issuedAt: Int) -> String {
        let payload = "{\"iat\":\(issuedAt),\"exp\":\(issuedAt + lifetime),\"jti\":\"\(jti())\",\"user\":\(userID)}"
        return TokenParts.jwt(header: header, payload: Array(payload.utf8))
    }

    /// 16 random bytes written in base 62, left-padded with `0` to 22 characters.
    static func jti() -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var number = TokenParts.randomBytes(16)
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
