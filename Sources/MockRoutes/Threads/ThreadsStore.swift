import Foundation
import MockHTTP
import MockKit

/// The threads API's data: users, threads, messages, live tokens and the id counters.
///
/// Rows are found by id in O(1) and one thread's messages without looking at the others, so a
/// request costs the same with 10 threads or 100,000. Users, threads and messages change only
/// through the methods below, which keep the lookups in step.
///
/// A thread's messages form a chain from its newest message back (`Thread.lastMessageID`,
/// `Message.previousInThread`): new messages always have the highest id, so adding one is O(1),
/// and no thread needs a list of its own (100,000 threads would be 100,000 small arrays).
public struct ThreadsState {
    /// The rows keep their strings in `texts` (`text(_:)` gives them back).
    struct User: Identifiable {
        var id: Int
        var email: TextSpan
        var password: TextSpan
        var fname: TextSpan
        var lname: TextSpan
        var role: TextSpan
    }

    struct Thread: Identifiable {
        var id: Int
        var userID: Int
        var title: TextSpan
        var createdAt: Stamp
        /// Its newest message, nil while it has none.
        var lastMessageID: Int? = nil
    }

    struct Message: Identifiable {
        var id: Int
        var threadID: Int
        var userID: Int
        var text: TextSpan
        var createdAt: Stamp
        /// `previousInThread`, or the message's own id for none (no message precedes itself): 8
        /// bytes, where an optional takes 9 and makes every row 8 bytes longer.
        private var previousID: Int

        init(id: Int, threadID: Int, userID: Int, text: TextSpan, createdAt: Stamp) {
            (self.id, self.threadID, self.userID, self.text, self.createdAt, previousID) = (id, threadID, userID, text, createdAt, id)
        }

        /// The message of the same thread before this one (the next lower id), nil for the first.
        var previousInThread: Int? {
            get { previousID == id ? nil : previousID }
            set { previousID = newValue ?? id }
        }
    }

    struct Token {
        var userID: Int
        var expires: Int
        /// Set once the token listed threads through `GET /api/thread`: it belongs to a 2017–2018
        /// app, which gets the flat shape on every answer from then on.
        var isLegacy = false
    }

    private(set) var users = RowTable<User>()
    private(set) var threads = RowTable<Thread>()
    private(set) var messages = RowTable<Message>()
    /// Every row's strings.
    private(set) var texts = RowTexts()
    /// Users' slots in `users` by email: emails are unique whatever their letter case, and otherwise
    /// compared byte for byte. Users are never removed, so their slots never move.
    private var userSlotByEmail = EmailIndex()
    private(set) var tokens: [ExactText: Token] = [:]
    /// The tokens logins issued, which end oldest first past a limit (docs/apis/threads.md#tokens).
    private var issuedTokens = IssuedTokens()
    var nextUserID = 1
    var nextThreadID = 1
    var nextMessageID = 1
    public var changes = StateChanges()

    func text(_ span: TextSpan) -> String { texts[span] }

    func user(_ id: Int) -> User? { users[id] }

    func user(email: String) -> User? {
        var email = email
        let slot = email.withUTF8 { utf8 in
            EmailIndex.withKey(utf8) { key in userSlotByEmail.position(of: key) { Self.hasEmailKey(users[slot: $0], key, in: texts) } }
        }
        return slot.flatMap { users[slot: $0] }
    }

    /// Calls `body` with the UTF-8 of the key of a user's email (`EmailIndex.withKey`).
    private static func withEmailKey<Result>(_ user: User, in texts: RowTexts, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        texts.withUTF8(user.email) { EmailIndex.withKey($0, body) }
    }

    private static func hasEmailKey(_ user: User?, _ key: UnsafeBufferPointer<UInt8>, in texts: RowTexts) -> Bool {
        user.map { withEmailKey($0, in: texts) { $0.elementsEqual(key) } } ?? false
    }

    /// The email index of `count` users, by position (`user` gives the user at one), sized for
    /// them; with the position of the first user whose email's key an earlier one has, if any
    /// (filed no more than the earlier one).
    private static func emailIndex(of count: Int, in texts: RowTexts, _ user: (Int) -> User?) -> (EmailIndex, duplicate: Int?) {
        var index = EmailIndex(capacity: count)
        var duplicate: Int?
        for position in 0..<count {
            guard let row = user(position) else { continue }
            let earlier = withEmailKey(row, in: texts) { key in index.insert(key, at: position) { hasEmailKey(user($0), key, in: texts) } }
            if earlier != nil, duplicate == nil { duplicate = position }
        }
        return (index, duplicate)
    }

    func thread(_ id: Int) -> Thread? { threads[id] }

    func message(_ id: Int) -> Message? { messages[id] }

    /// A thread's messages, newest (highest id) first.
    func messages(inThread id: Int) -> [Message] {
        var found: [Message] = []
        var next = threads[id]?.lastMessageID
        while let messageID = next, let message = messages[messageID] {
            found.append(message)
            next = message.previousInThread
        }
        return found
    }

    /// Adds a user with the next user id, which is above every earlier one.
    mutating func addUser(email: String, password: String, fname: String, lname: String) throws(ThreadsError) -> User {
        let id = try Self.take(&nextUserID, "user")
        let user = User(id: id, email: texts.append(email), password: texts.append(password),
                        fname: texts.append(fname), lname: texts.append(lname), role: texts.append("USER"))
        users.append(user)
        let (table, strings) = (users, texts)
        _ = Self.withEmailKey(user, in: strings) { key in
            userSlotByEmail.insert(key, at: table.slotCount - 1) { Self.hasEmailKey(table[slot: $0], key, in: strings) }
        }
        changes.touch(.row("users", "user_id", .int(user.id)))
        changes.touch(.member("next_ids"))
        return user
    }

    /// Adds a thread with the next thread id, which is above every earlier one.
    mutating func addThread(userID: Int, title: String, createdAt: Stamp) throws(ThreadsError) -> Thread {
        let thread = Thread(id: try Self.take(&nextThreadID, "thread"), userID: userID, title: texts.append(title), createdAt: createdAt)
        threads.append(thread)
        changes.touch(.row("threads", "thread_id", .int(thread.id)))
        changes.touch(.member("next_ids"))
        return thread
    }

    /// Adds a message, to an existing thread, with the next message id, which is above every earlier one.
    mutating func addMessage(threadID: Int, userID: Int, text: String, createdAt: Stamp) throws(ThreadsError) -> Message {
        let id = try Self.take(&nextMessageID, "message")
        var message = Message(id: id, threadID: threadID, userID: userID, text: texts.append(text), createdAt: createdAt)
        Self.chain(&message, into: &threads)
        messages.append(message)
        changes.touch(.row("messages", "message_id", .int(message.id)))
        changes.touch(.member("next_ids"))
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

    /// Makes a message, whose id is above all of its thread's, the thread's newest.
    private static func chain(_ message: inout Message, into threads: inout RowTable<Thread>) {
        let newID = message.id
        message.previousInThread = threads.update(message.threadID) { thread in
            defer { thread.lastMessageID = newID }
            return thread.lastMessageID
        } ?? nil
    }

    /// Removes a thread and its messages.
    mutating func removeThread(_ id: Int) {
        // Oldest first, as the messages were once listed.
        for message in messages(inThread: id).reversed() {
            messages.remove(message.id)
            texts.release(message.text)
            changes.touch(.row("messages", "message_id", .int(message.id)))
        }
        if let thread = threads.remove(id) { texts.release(thread.title) }
        changes.touch(.row("threads", "thread_id", .int(id)))
        compactTextsIfMostlyUnused()
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
        texts.release(message.text)
        // The thread's newest message, or the one after it in the chain, now points past it.
        if threads[message.threadID]?.lastMessageID == id {
            threads.update(message.threadID) { $0.lastMessageID = message.previousInThread }
        } else {
            var later = threads[message.threadID]?.lastMessageID
            while let laterID = later, let row = messages[laterID] {
                guard row.previousInThread != id else {
                    messages.update(laterID) { $0.previousInThread = message.previousInThread }
                    break
                }
                later = row.previousInThread
            }
        }
        changes.touch(.row("messages", "message_id", .int(id)))
        compactTextsIfMostlyUnused()
    }

    /// Once removed rows hold most of `texts`, the live rows' strings move to a fresh one, so
    /// adding and deleting messages for good keeps memory to about twice the live text.
    private mutating func compactTextsIfMostlyUnused() {
        guard texts.isMostlyUnused else { return }
        let old = texts
        var fresh = RowTexts()
        users.updateAll { user in
            user.email = old.copy(user.email, to: &fresh)
            user.password = old.copy(user.password, to: &fresh)
            user.fname = old.copy(user.fname, to: &fresh)
            user.lname = old.copy(user.lname, to: &fresh)
            user.role = old.copy(user.role, to: &fresh)
        }
        threads.updateAll { $0.title = old.copy($0.title, to: &fresh) }
        messages.updateAll { $0.text = old.copy($0.text, to: &fresh) }
        texts = fresh
    }

    func creator(_ userID: Int) -> Creator {
        let owner = user(userID)
        return Creator(fname: owner.map { text($0.fname) } ?? "", lname: owner.map { text($0.lname) } ?? "", userID: userID)
    }

    func shape(_ thread: Thread) -> ThreadShape {
        ThreadShape(createdBy: creator(thread.userID), threadID: thread.id, title: text(thread.title), createdAt: thread.createdAt.text)
    }

    func shape(_ message: Message) -> MessageShape {
        MessageShape(createdBy: creator(message.userID), messageID: message.id, message: text(message.text),
                     createdAt: message.createdAt.text)
    }

    func legacyShape(_ thread: Thread) -> LegacyShape {
        LegacyShape(id: thread.id, creator: creator(thread.userID), text: .title(text(thread.title)), createdAt: thread.createdAt.text)
    }

    func legacyShape(_ message: Message) -> LegacyShape {
        LegacyShape(id: message.id, creator: creator(message.userID), text: .message(text(message.text)),
                    createdAt: message.createdAt.text)
    }
}

// MARK: Seed format

extension ThreadsState {
    /// Reads and checks a seed or state document (`Seed/threads.json`, docs/apis/threads.md#accounts).
    init(seed document: SeedJSON) throws(SeedError) {
        // Reading a seed is no change: nothing is recorded meanwhile.
        changes.isRecording = false
        defer { changes = StateChanges() }
        // The strings are shorter than the document (see `RowTable.init(reservingCapacity:)`).
        texts = RowTexts(reservingCapacity: document.bytes.count)
        // Taken once: each `document.bytes` is a call that retains them (the rows read them 500,000 times).
        let bytes = document.bytes
        // Rows are checked in document order (so an error names the first bad row) and kept by id.
        try document.read { root throws(SeedError) in
            try root.members(Keys.root) { key, value throws(SeedError) in
                switch key {
                case 0: try readUsers(&value, in: bytes)
                case 1: try readThreads(&value, in: bytes)
                case 2: try readMessages(&value, in: bytes)
                case 3:
                    try value.elements { item throws(SeedError) in
                        var token = "", record = Token(userID: 0, expires: 0)
                        let row = item.offset
                        try item.members(Keys.token) { key, value throws(SeedError) in
                            switch key {
                            case 0: token = try value.text()
                            case 1:
                                record.userID = try value.int()
                                if !users.contains(record.userID) { throw value.fail(at: row, "user_id \(record.userID) is not a user") }
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
        nextUserID = max((users.last?.id ?? 0) + 1, nextUserID)
        nextThreadID = max((threads.last?.id ?? 0) + 1, nextThreadID)
        nextMessageID = max((messages.last?.id ?? 0) + 1, nextMessageID)
    }

    /// A row's own id: any integer but the largest, after which there would be no next id.
    private static func rowID(_ value: inout SeedReader) throws(SeedError) -> Int {
        let id = try value.int()
        guard id < Int.max else { throw value.fail("must be below \(Int.max)") }
        return id
    }

    private enum Keys {
        static let root = SeedKeys(["users", "threads", "messages"], optional: ["tokens", "next_ids"])
        static let user = SeedKeys(["user_id", "email", "password", "fname", "lname"], optional: ["role"])
        static let thread = SeedKeys(["thread_id", "user_id", "title", "created_at"])
        static let message = SeedKeys(["message_id", "thread_id", "user_id", "message", "created_at"])
        static let token = SeedKeys(["token", "user_id", "exp"], optional: ["legacy"])
        static let nextIDs = SeedKeys(["user", "thread", "message"])
    }

    /// Room for the rows of the array `value` starts: no more than fit in the rest of the
    /// document at `smallestRow` bytes each (the shortest such row, with its comma).
    private static func rowsRoom(_ value: SeedReader, in document: ArraySlice<UInt8>, smallestRow: Int) -> Int {
        (document.count - value.offset) / smallestRow
    }

    private mutating func readUsers(_ value: inout SeedReader, in document: ArraySlice<UInt8>) throws(SeedError) {
        // {"user_id":0,"email":"a","password":"a","fname":"a","lname":"a"},
        var seeded = SeedRows<User>(reservingCapacity: Self.rowsRoom(value, in: document, smallestRow: 65))
        let array = value
        let defaultRole = texts.append("USER")
        do {
            try value.elements { item throws(SeedError) in
                let none = TextSpan.empty
                var user = User(id: 0, email: none, password: none, fname: none, lname: none, role: defaultRole)
                try item.members(Keys.user) { key, value throws(SeedError) in
                    switch key {
                    case 0: user.id = try Self.rowID(&value)
                    case 1: user.email = try Self.text(&value, in: document, into: &texts)
                    case 2: user.password = try Self.text(&value, in: document, into: &texts)
                    case 3: user.fname = try Self.text(&value, in: document, into: &texts)
                    case 4: user.lname = try Self.text(&value, in: document, into: &texts)
                    default: user.role = try Self.text(&value, in: document, into: &texts, emptyAllowed: true)
                    }
                }
                guard seeded.add(user) else { throw item.fail("duplicate user_id \(user.id)") }
            }
        } catch {
            // The rows before the one in error may hold a duplicate email, which comes first.
            try checkEmails(of: seeded, in: array)
            throw error
        }
        // Once the rows are counted, the index is made at its size; by document order, so the first
        // duplicate is the one named, then by slot if the rows got sorted.
        let emails = try checkEmails(of: seeded, in: array)
        let reordered = seeded.isReordered
        users = seeded.finish()
        userSlotByEmail = reordered ? Self.emailIndex(of: users.slotCount, in: texts) { users[slot: $0] }.0 : emails
    }

    /// The email index of the users read so far, by document position; the first duplicate is an
    /// error at its row of `array`.
    @discardableResult
    private func checkEmails(of seeded: SeedRows<User>, in array: SeedReader) throws(SeedError) -> EmailIndex {
        let (index, duplicate) = Self.emailIndex(of: seeded.count, in: texts) { seeded[$0] }
        guard let duplicate else { return index }
        var rows = array, position = 0
        try rows.elements { item throws(SeedError) in
            if position == duplicate { throw item.fail("duplicate email \(text(seeded[duplicate].email))") }
            position += 1
        }
        return index
    }

    private mutating func readThreads(_ value: inout SeedReader, in document: ArraySlice<UInt8>) throws(SeedError) {
        // {"thread_id":0,"user_id":0,"title":"a","created_at":"0000-01-01 00:00:00"},
        var seeded = SeedRows<Thread>(reservingCapacity: Self.rowsRoom(value, in: document, smallestRow: 75))
        var stamps = StampReader()
        try value.elements { item throws(SeedError) in
            var thread = Thread(id: 0, userID: 0, title: .empty, createdAt: Stamp(unixSeconds: 0))
            try item.members(Keys.thread) { key, value throws(SeedError) in
                switch key {
                case 0: thread.id = try Self.rowID(&value)
                case 1: thread.userID = try value.int()
                case 2: thread.title = try Self.text(&value, in: document, into: &texts)
                default: thread.createdAt = try Self.stamp(&value, in: document, with: &stamps)
                }
            }
            guard seeded.add(thread) else { throw item.fail("duplicate thread_id \(thread.id)") }
            if !users.contains(thread.userID) { throw item.fail("user_id \(thread.userID) is not a user") }
        }
        threads = seeded.finish()
    }

    private mutating func readMessages(_ value: inout SeedReader, in document: ArraySlice<UInt8>) throws(SeedError) {
        // {"message_id":0,"thread_id":0,"user_id":0,"message":"a","created_at":"0000-01-01 00:00:00"},
        var seeded = SeedRows<Message>(reservingCapacity: Self.rowsRoom(value, in: document, smallestRow: 92))
        var stamps = StampReader()
        try value.elements { item throws(SeedError) in
            var message = Message(id: 0, threadID: 0, userID: 0, text: .empty, createdAt: Stamp(unixSeconds: 0))
            try item.members(Keys.message) { key, value throws(SeedError) in
                switch key {
                case 0: message.id = try Self.rowID(&value)
                case 1: message.threadID = try value.int()
                case 2: message.userID = try value.int()
                case 3: message.text = try Self.text(&value, in: document, into: &texts)
                default: message.createdAt = try Self.stamp(&value, in: document, with: &stamps)
                }
            }
            guard seeded.add(message) else { throw item.fail("duplicate message_id \(message.id)") }
            if !threads.contains(message.threadID) { throw item.fail("thread_id \(message.threadID) is not a thread") }
            if !users.contains(message.userID) { throw item.fail("user_id \(message.userID) is not a user") }
        }
        messages = seeded.finish()
        messages.updateAll { Self.chain(&$0, into: &threads) }
    }

    /// A string value, its UTF-8 added to `texts`; it must not be empty unless `emptyAllowed`. A
    /// string without escapes, as nearly every one is, is copied straight from the document's
    /// bytes (scanned and checked once more as the reader skips it); anything else goes through
    /// the reader, for its decoding or its error.
    private static func text(_ value: inout SeedReader, in document: ArraySlice<UInt8>, into texts: inout RowTexts,
                             emptyAllowed: Bool = false) throws(SeedError) -> TextSpan {
        let plain = document.withUnsafeBufferPointer { bytes -> TextSpan? in
            var scanner = JSONScanner(bytes, position: value.offset)
            guard scanner.current == UInt8(ascii: "\""), let token = try? scanner.scanString(), !token.hasEscapes,
                  emptyAllowed || !token.content.isEmpty else { return nil }
            return texts.append(UnsafeBufferPointer(rebasing: bytes[token.content]))
        }
        if let plain { return plain }
        return texts.append(try emptyAllowed ? value.string() : value.text())
    }

    /// A `created_at` value. A plain 19-byte string, as almost every one is, is read straight from
    /// the document's bytes, without making a string; anything else (escapes, another type, a
    /// bad stamp) goes through the reader, for its error.
    private static func stamp(_ value: inout SeedReader, in document: ArraySlice<UInt8>, with stamps: inout StampReader) throws(SeedError) -> Stamp {
        let quoted = document.withUnsafeBufferPointer { bytes -> Stamp? in
            let start = value.offset
            guard start + 20 < bytes.count, bytes[start] == UInt8(ascii: "\""), bytes[start + 20] == UInt8(ascii: "\"") else { return nil }
            return stamps.read(UnsafeBufferPointer(rebasing: bytes[start + 1..<start + 20]))
        }
        // Left unread, the value is checked and skipped by the reader.
        if let quoted { return quoted }
        let text = try value.string()
        let stamp = Array(text.utf8).withUnsafeBufferPointer { Stamp($0) }
        guard let stamp else { throw value.fail("expected YYYY-MM-DD HH:MM:SS, got \(text)") }
        return stamp
    }
}

extension ThreadsState: LoggedState {
    public func seedRow(at path: RowPath) -> [UInt8]? {
        let step = path.steps[0]
        switch (step.member, step.key) {
        case let ("users", .int(id)?): return users[id].map { Self.encode(ThreadsSeedFile.User($0, in: self)) }
        case let ("threads", .int(id)?): return threads[id].map { Self.encode(ThreadsSeedFile.Thread($0, in: self)) }
        case let ("messages", .int(id)?): return messages[id].map { Self.encode(ThreadsSeedFile.Message($0, in: self)) }
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

        init(_ user: ThreadsState.User, in state: ThreadsState) {
            (userID, email, password) = (user.id, state.text(user.email), state.text(user.password))
            (fname, lname, role) = (state.text(user.fname), state.text(user.lname), state.text(user.role))
        }
    }
    struct Thread: Encodable {
        var threadID: Int, userID: Int, title: String, createdAt: String

        enum CodingKeys: String, CodingKey {
            case threadID = "thread_id", userID = "user_id", title, createdAt = "created_at"
        }

        init(_ thread: ThreadsState.Thread, in state: ThreadsState) {
            (threadID, userID, title, createdAt) = (thread.id, thread.userID, state.text(thread.title), thread.createdAt.text)
        }
    }
    struct Message: Encodable {
        var messageID: Int, threadID: Int, userID: Int, message: String, createdAt: String

        enum CodingKeys: String, CodingKey {
            case messageID = "message_id", threadID = "thread_id", userID = "user_id", message, createdAt = "created_at"
        }

        init(_ message: ThreadsState.Message, in state: ThreadsState) {
            (messageID, threadID, userID, self.message, createdAt) =
                (message.id, message.threadID, message.userID, state.text(message.text), message.createdAt.text)
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
        users = state.users.rows.map { User($0, in: state) }
        threads = state.threads.rows.map { Thread($0, in: state) }
        messages = state.messages.rows.map { Message($0, in: state) }
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
