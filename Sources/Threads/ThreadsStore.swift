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
    /// User id → their live tokens, oldest first, at most `TokenLimit.perOwner` (docs/apis/threads.md#tokens).
    private var tokensOfUser: [Int: [String]] = [:]
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

    /// A new token for the user; past `TokenLimit.perOwner`, their oldest stops working.
    mutating func issueToken(_ token: String, to record: Token) {
        tokens[ExactText(token)] = record
        changes.touch(.row("tokens", "token", .string(token)))
        for ended in TokenLimit.append(token, to: &tokensOfUser[record.userID, default: []]) {
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
    init(seed document: JSONValue) throws(SeedError) {
        // Reading a seed is no change: nothing is recorded meanwhile.
        changes.isRecording = false
        defer { changes = StateChanges() }
        let root = try SeedNode(document).object()
        // Checked in document order (so an error names the first bad row), then added by id.
        let userNodes = try root.array("users"), threadNodes = try root.array("threads")
        let messageNodes = try root.array("messages")
        var seededUsers: [User] = [], userIDs: Set<Int> = [], seededEmails: Set<ExactText> = []
        userIDs.reserveCapacity(userNodes.count)
        seededEmails.reserveCapacity(userNodes.count)
        for node in userNodes {
            let item = try node.object()
            let user = User(id: try item.int("user_id"), email: try item.text("email"), password: try item.text("password"),
                            fname: try item.text("fname"), lname: try item.text("lname"),
                            role: try item.optionalNode("role")?.string() ?? "USER")
            if !userIDs.insert(user.id).inserted { throw node.fail("duplicate user_id \(user.id)") }
            if !seededEmails.insert(ExactText(user.email.lowercased())).inserted { throw node.fail("duplicate email \(user.email)") }
            seededUsers.append(user)
        }
        var seededThreads: [Thread] = [], threadIDs: Set<Int> = []
        threadIDs.reserveCapacity(threadNodes.count)
        for node in threadNodes {
            let item = try node.object()
            let thread = Thread(id: try item.int("thread_id"), userID: try item.int("user_id"),
                                title: try item.text("title"), createdAt: try Self.stamp(item))
            if !threadIDs.insert(thread.id).inserted { throw node.fail("duplicate thread_id \(thread.id)") }
            if !userIDs.contains(thread.userID) { throw node.fail("user_id \(thread.userID) is not a user") }
            seededThreads.append(thread)
        }
        var seededMessages: [Message] = [], messageIDs: Set<Int> = []
        messageIDs.reserveCapacity(messageNodes.count)
        for node in messageNodes {
            let item = try node.object()
            let message = Message(id: try item.int("message_id"), threadID: try item.int("thread_id"),
                                  userID: try item.int("user_id"), text: try item.text("message"),
                                  createdAt: try Self.stamp(item))
            if !messageIDs.insert(message.id).inserted { throw node.fail("duplicate message_id \(message.id)") }
            if !threadIDs.contains(message.threadID) { throw node.fail("thread_id \(message.threadID) is not a thread") }
            if !userIDs.contains(message.userID) { throw node.fail("user_id \(message.userID) is not a user") }
            seededMessages.append(message)
        }
        var loadedTokens: [(token: String, record: Token)] = []
        for node in try root.optionalNode("tokens")?.array() ?? [] {
            let item = try node.object()
            let userID = try item.int("user_id")
            if !userIDs.contains(userID) { throw node.fail("user_id \(userID) is not a user") }
            loadedTokens.append((try item.text("token"), Token(userID: userID, expires: try item.int("exp"),
                                                               isLegacy: try item.optionalNode("legacy")?.bool() ?? false)))
        }
        // Issued in the order they expire (every token lives as long), so a user's oldest ends first.
        for loaded in loadedTokens.sorted(by: { $0.record.expires < $1.record.expires }) {
            issueToken(loaded.token, to: loaded.record)
        }
        // The sort is stable and linear on rows already in id order, as a saved state's are.
        for user in seededUsers.sorted(by: { $0.id < $1.id }) { add(user) }
        for thread in seededThreads.sorted(by: { $0.id < $1.id }) { add(thread) }
        for message in seededMessages.sorted(by: { $0.id < $1.id }) { add(message) }
        nextUserID = (users.last?.id ?? 0) + 1
        nextThreadID = (threads.last?.id ?? 0) + 1
        nextMessageID = (messages.last?.id ?? 0) + 1
        if let next = root.optionalNode("next_ids") {
            let counters = try next.object()
            // Counters only ever move forward: ids of deleted rows are never handed out again.
            nextUserID = max(nextUserID, try counters.int("user"))
            nextThreadID = max(nextThreadID, try counters.int("thread"))
            nextMessageID = max(nextMessageID, try counters.int("message"))
        }
    }

    private static func stamp(_ item: SeedObject) throws(SeedError) -> String {
        let text = try item.string("created_at")
        guard CivilTime(sqlText: text) != nil else {
            throw SeedError(path: "\(item.path).created_at", problem: "expected YYYY-MM-DD HH:MM:SS, got \(text)")
        }
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
