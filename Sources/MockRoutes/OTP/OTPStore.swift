import MockHTTP
import MockKit

/// One wallet account, three strings kept exactly as the client sent them (docs/apis/otp.md#endpoints).
struct OTPAccount: Encodable, Equatable {
    var id: String
    var amount: String
    var name: String

    enum CodingKeys: String, CodingKey {
        case id = "ID", amount, name
    }

    private static let keys = SeedKeys(["ID", "amount", "name"])

    /// A posted or seeded account list (docs/apis/otp.md#endpoints); other keys of an account are dropped.
    static func list(_ value: inout SeedReader) throws(SeedError) -> [OTPAccount] {
        var accounts: [OTPAccount] = []
        try value.elements { item throws(SeedError) in
            var account = OTPAccount(id: "", amount: "", name: "")
            try item.members(keys) { key, value throws(SeedError) in
                switch key {
                case 0: account.id = try value.string()
                case 1:
                    account.amount = try value.string()
                    guard isDecimal(account.amount) else { throw value.fail("expected a decimal number in a string") }
                default: account.name = try value.string()
                }
            }
            accounts.append(account)
        }
        return accounts
    }

    /// A `DecimalLiteral`: what the app can turn into a Double.
    static func isDecimal(_ text: String) -> Bool { DecimalLiteral.matches(text.utf8) }
}

struct OTPUser {
    /// `OTPSecret.userIDLength` characters.
    var userID: OTPSecret
    var phone: NormalizedPhone
    var name: String
    /// `OTPSecret.length` characters.
    var keyfilePassword: OTPSecret
    /// nil until accounts were first saved: the user object then has no `accounts` key.
    var accounts: [OTPAccount]?
    /// The user's tokens are a list through `OTPDirectory.tokens`, oldest first (-1: none): first
    /// those a seed or state document gave, which never end, then those logins issued
    /// (docs/apis/otp.md#tokens). 32-bit, as each of the million rows of a large seed keeps them.
    fileprivate var firstToken: Int32 = -1
    fileprivate var lastToken: Int32 = -1

    init(userID: OTPSecret, phone: NormalizedPhone, name: String, keyfilePassword: OTPSecret) {
        (self.userID, self.phone, self.name, self.keyfilePassword) = (userID, phone, name, keyfilePassword)
    }

    static let maxNameLength = 64

    /// A posted or seeded name: any string of at most 64 Unicode scalars, `""` included.
    static func name(_ value: inout SeedReader) throws(SeedError) -> String {
        let name = try value.string()
        // No more scalars than UTF-8 bytes: only a long name needs counting.
        guard name.utf8.count <= maxNameLength || name.unicodeScalars.count <= maxNameLength else {
            throw value.fail("longer than \(maxNameLength) characters")
        }
        return name
    }

    var userIDText: String { userID.text(length: OTPSecret.userIDLength) }
    var keyfilePasswordText: String { keyfilePassword.text(length: OTPSecret.length) }
}

/// Users and their live tokens: what the seed and the state document hold.
public struct OTPDirectory {
    private(set) var users: [OTPUser] = []
    var changes = StateChanges()
    /// Every live token and its owner; entries of ended tokens are reused (`freeToken`).
    private var tokens: [Token] = []
    private var freeToken: Int32 = -1
    /// Numbers, tokens and user ids compare byte for byte, as the real server's strings did.
    private var indexByPhone = TaggedRowIndex()
    private var indexByUserID = TaggedRowIndex()
    /// Rows of `tokens`.
    private var indexByToken = TaggedRowIndex()
    /// The tokens logins issued, which end oldest first past a limit.
    private var issuedTokens = IssuedTokens()

    private struct Token {
        var secret: OTPSecret
        var owner: Int32
        /// The owner's next token, or on the free list the next free entry; -1 at the end.
        var next: Int32
    }

    init() {}

    func index(phone: String) -> Int? { NormalizedPhone(phone).flatMap(index(phone:)) }

    func index(token: String) -> Int? {
        OTPSecret(token, length: OTPSecret.length).flatMap(tokenEntry).map { Int(tokens[$0].owner) }
    }

    subscript(index: Int) -> OTPUser { users[index] }

    /// The user's tokens, oldest first.
    func tokens(of index: Int) -> [String] {
        var texts: [String] = []
        var entry = users[index].firstToken
        while entry >= 0 {
            texts.append(tokens[Int(entry)].secret.text(length: OTPSecret.length))
            entry = tokens[Int(entry)].next
        }
        return texts
    }

    func firstToken(of index: Int) -> String? {
        let entry = users[index].firstToken
        return entry < 0 ? nil : tokens[Int(entry)].secret.text(length: OTPSecret.length)
    }

    /// The user with that number, created (no name, no accounts) when there is none yet.
    mutating func findOrCreate(phone text: String, random: RandomStream) -> (index: Int, created: Bool) {
        guard let phone = NormalizedPhone(text) else { preconditionFailure("\(text) is not normalized") }
        if let index = index(phone: phone) { return (index, false) }
        var userID = OTPSecret.random(length: OTPSecret.userIDLength, random)
        while index(userID: userID) != nil { userID = OTPSecret.random(length: OTPSecret.userIDLength, random) }
        add(OTPUser(userID: userID, phone: phone, name: "", keyfilePassword: OTPSecret.random(length: OTPSecret.length, random)))
        touch(users.count - 1)
        return (users.count - 1, true)
    }

    /// A login's new token for the user; past `limit` issued ones, the oldest issued stops working.
    mutating func issueToken(to index: Int, limit: Int, random: RandomStream) -> String {
        var token = OTPSecret.random(length: OTPSecret.length, random)
        while tokenEntry(token) != nil { token = OTPSecret.random(length: OTPSecret.length, random) }
        Self.link(newToken(token, owner: index), to: &users[index], in: &tokens)
        touch(index)
        let text = token.text(length: OTPSecret.length)
        if let ended = issuedTokens.record(text, limit: limit), let secret = OTPSecret(ended, length: OTPSecret.length),
           let entry = tokenEntry(secret) {
            touch(Int(tokens[entry].owner))
            remove(entry)
        }
        return text
    }

    mutating func update(_ index: Int, name: String?, accounts: [OTPAccount]?) {
        if let name { users[index].name = name }
        if let accounts { users[index].accounts = accounts }
        touch(index)
    }

    /// A user's row is written whole: its tokens and accounts are part of it.
    private mutating func touch(_ index: Int) {
        changes.touch(.row("users", "e164_phone_number", .string(users[index].phone.text)))
    }

    private func index(phone: NormalizedPhone) -> Int? {
        indexByPhone.row(hash: phone.keyHash) { users[$0].phone == phone }
    }

    private func index(userID: OTPSecret) -> Int? {
        indexByUserID.row(hash: userID.keyHash) { users[$0].userID == userID }
    }

    private func tokenEntry(_ secret: OTPSecret) -> Int? {
        indexByToken.row(hash: secret.keyHash) { tokens[$0].secret == secret }
    }

    /// Adds `user` as row `users.count`; its tokens are in `tokens` already. `indexed`: its keys
    /// go into the indexes now (else `indexSeedRows` files them once every row is read).
    private mutating func add(_ user: OTPUser, indexed: Bool = true) {
        if indexed {
            indexByPhone.add(users.count, hash: user.phone.keyHash)
            indexByUserID.add(users.count, hash: user.userID.keyHash)
        }
        users.append(user)
    }

    /// A new entry for `secret`, owned by row `owner` of `users` (the next row while a seed is read);
    /// `link` then puts it in the owner's list. `indexed` as for `add`.
    private mutating func newToken(_ secret: OTPSecret, owner: Int, indexed: Bool = true) -> Int32 {
        let token = Token(secret: secret, owner: Int32(owner), next: -1)
        let entry: Int32
        if freeToken >= 0 {
            entry = freeToken
            freeToken = tokens[Int(entry)].next
            tokens[Int(entry)] = token
        } else {
            entry = Int32(tokens.count)
            tokens.append(token)
        }
        if indexed { indexByToken.add(Int(entry), hash: secret.keyHash) }
        return entry
    }

    /// Makes the token at `entry` the user's newest.
    private static func link(_ entry: Int32, to user: inout OTPUser, in tokens: inout [Token]) {
        if user.lastToken >= 0 { tokens[Int(user.lastToken)].next = entry } else { user.firstToken = entry }
        user.lastToken = entry
    }

    /// Ends the token at `entry`: out of its owner's list, its entry free for the next one.
    private mutating func remove(_ entry: Int) {
        let owner = Int(tokens[entry].owner), next = tokens[entry].next
        // The token that ends is its owner's oldest issued one, right after the document's: a short walk.
        var previous: Int32 = -1, current = users[owner].firstToken
        while current != Int32(entry) {
            previous = current
            current = tokens[Int(current)].next
        }
        if previous >= 0 { tokens[Int(previous)].next = next } else { users[owner].firstToken = next }
        if users[owner].lastToken == Int32(entry) { users[owner].lastToken = previous }
        indexByToken.remove(entry, hash: tokens[entry].secret.keyHash)
        tokens[entry].next = freeToken
        freeToken = Int32(entry)
    }
}

/// Everything the API holds: the users, each number's pending code, and the texts "sent".
public struct OTPState {
    struct PendingCode {
        var code: String
        var expiresAtMillis: Int
        var failedAttempts = 0
    }

    struct OutboxMessage {
        var phone: String
        var code: String
        var sentAtMillis: Int
        var expiresAtMillis: Int
    }

    /// What a number has used up in its current hour: codes sent and wrong codes tried, whichever
    /// code they were for, so that asking for new codes buys no more guesses.
    struct NumberBudget {
        var startedAtMillis: Int
        var codesSent = 0
        var wrongCodes = 0
    }

    /// Wrong codes a pending code takes before it is locked (docs/apis/otp.md#endpoints).
    static let attemptLimit = 5
    /// Wrong codes a number takes per hour, across resends, and codes sent to it per hour.
    static let wrongCodesPerHour = 10
    static let codesPerHour = 20
    static let budgetMillis = 3_600_000
    static let outboxLimit = 1_000
    /// Below this many numbers nothing is pruned.
    static let pruneAbove = 10_000
    /// Numbers with a budget or pending code at most: past it, those whose budget began first go,
    /// their hour over or not (docs/apis/otp.md#guessing-a-code). Tests set a small one.
    var trackedNumbersLimit = 100_000
    /// The table size at which the next prune runs: twice what the last one kept, so pruning is
    /// amortized O(1) per send however many numbers stay in use.
    private var pruneAt = OTPState.pruneAbove
    /// How many prunes ran (tests check they stay few).
    private(set) var pruneCount = 0

    var directory: OTPDirectory
    var pendingCodes: [String: PendingCode] = [:]
    var budgets: [String: NumberBudget] = [:]
    /// Oldest first.
    var outbox: [OutboxMessage] = []

    init(directory: OTPDirectory) {
        self.directory = directory
    }

    /// Replaces the number's pending code and records the text in one step, so the newest outbox
    /// entry of a number is always its pending code.
    mutating func issueCode(_ code: String, to phone: String, nowMillis: Int, ttlMillis: Int) throws(OTPError) {
        var budget = currentBudget(of: phone, nowMillis: nowMillis)
        guard budget.codesSent < Self.codesPerHour else { throw .tooManyCodes }
        budget.codesSent += 1
        budgets[phone] = budget
        if max(pendingCodes.count, budgets.count) >= min(pruneAt, trackedNumbersLimit) { prune(nowMillis: nowMillis) }
        pendingCodes[phone] = PendingCode(code: code, expiresAtMillis: nowMillis + ttlMillis)
        outbox.append(OutboxMessage(phone: phone, code: code, sentAtMillis: nowMillis, expiresAtMillis: nowMillis + ttlMillis))
        if outbox.count > Self.outboxLimit { outbox.removeFirst(outbox.count - Self.outboxLimit) }
    }

    /// docs/apis/otp.md#endpoints: a right code is used up; a wrong one counts towards the lock.
    mutating func consumeCode(of phone: String, attempt: String, nowMillis: Int) throws(OTPError) {
        guard var pending = pendingCodes[phone] else { throw .incorrectCode }
        var budget = currentBudget(of: phone, nowMillis: nowMillis)
        guard nowMillis < pending.expiresAtMillis, pending.failedAttempts < Self.attemptLimit,
              budget.wrongCodes < Self.wrongCodesPerHour else { throw .codeExpired }
        // Byte comparison: String's == would also accept canonically equivalent text.
        guard attempt.utf8.elementsEqual(pending.code.utf8) else {
            pending.failedAttempts += 1
            pendingCodes[phone] = pending
            budget.wrongCodes += 1
            budgets[phone] = budget
            throw .incorrectCode
        }
        pendingCodes[phone] = nil
    }

    /// The number's budget for the hour that began with its first send or wrong code.
    private func currentBudget(of phone: String, nowMillis: Int) -> NumberBudget {
        guard let budget = budgets[phone], nowMillis - budget.startedAtMillis < Self.budgetMillis else {
            return NumberBudget(startedAtMillis: nowMillis)
        }
        return budget
    }

    /// Expired codes and past hours go; if more than half the limit of numbers are still in use,
    /// those whose budget began first go too, down to half, so the next prune is as far away.
    private mutating func prune(nowMillis: Int) {
        pruneCount += 1
        pendingCodes = pendingCodes.filter { nowMillis < $0.value.expiresAtMillis }
        budgets = budgets.filter { nowMillis - $0.value.startedAtMillis < Self.budgetMillis }
        let keep = trackedNumbersLimit / 2
        if budgets.count > keep {
            let newest = budgets.sorted { $0.value.startedAtMillis > $1.value.startedAtMillis }.prefix(keep)
            budgets = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
        }
        // A send always makes a budget, so a code whose number has none left was for one that went.
        if pendingCodes.count > keep { pendingCodes = pendingCodes.filter { budgets[$0.key] != nil } }
        pruneAt = min(max(Self.pruneAbove, 2 * max(pendingCodes.count, budgets.count)), trackedNumbersLimit)
    }
}

// MARK: Seed format

extension OTPDirectory {
    /// Reads and checks a seed or state document (`Seed/otp.json`, docs/apis/otp.md#accounts).
    init(seed document: SeedJSON) throws(SeedError) {
        // Reading a seed is no change: nothing is recorded meanwhile.
        changes.isRecording = false
        defer { changes = StateChanges() }
        // First the quick way: the rows are read, then each index is filled in one pass. Looked up
        // and filed between the fields of each row, nearly every key waited for memory; in a pass
        // of their own the waits overlap. A document with anything wrong is read again the careful
        // way, key by key as read, which finds the first problem in reading order (a duplicate
        // key included) and reports it.
        if (try? read(document, indexingAsRead: false)) != nil, indexSeedRows() { return }
        self = OTPDirectory()
        changes.isRecording = false
        try read(document, indexingAsRead: true)
    }

    private mutating func read(_ document: SeedJSON, indexingAsRead: Bool) throws(SeedError) {
        // Secrets and numbers are read straight from the text where they can be (`plainString`).
        let outcome = document.bytes.withUnsafeBufferPointer { text in
            Result { () throws(SeedError) in try read(document, text: text, indexingAsRead: indexingAsRead) }
        }
        try outcome.get()
    }

    private mutating func read(_ document: SeedJSON, text: UnsafeBufferPointer<UInt8>, indexingAsRead: Bool) throws(SeedError) {
        try document.read { root throws(SeedError) in
            try root.members(Keys.root) { _, value throws(SeedError) in
                if indexingAsRead {
                    // Sized up front, so the tables are not rehashed as they fill.
                    let count = try value.count()
                    indexByPhone.reserveCapacity(count)
                    indexByUserID.reserveCapacity(count)
                    indexByToken.reserveCapacity(count)
                    users.reserveCapacity(count)
                    tokens.reserveCapacity(count)
                } else {
                    // No counting pass: no more users than this fit in the text, so `users` never
                    // grows, and memory no user fills is never touched. Most users have one token.
                    users.reserveCapacityInHugePages(text.count / Self.leastUserBytes)
                    tokens.reserveCapacityInHugePages(text.count / Self.leastUserBytes)
                }
                try value.elements { item throws(SeedError) in try addUser(&item, text: text, indexingAsRead: indexingAsRead) }
            }
        }
    }

    /// The shortest user object there is: its four required members, with nothing escaped.
    private static let leastUserBytes =
        #"{"user_id":"","e164_phone_number":"","name":"","keyfile_password":""}"#.utf8.count
        + OTPSecret.userIDLength + "+15305550123".utf8.count + OTPSecret.length

    /// Files every row's number, user id and tokens, each index in a pass of its own; false when
    /// two rows share one.
    private mutating func indexSeedRows() -> Bool {
        for row in users.indices {
            indexByPhone.fileLater(row, hash: users[row].phone.keyHash)
            indexByUserID.fileLater(row, hash: users[row].userID.keyHash)
        }
        for entry in tokens.indices { indexByToken.fileLater(entry, hash: tokens[entry].secret.keyHash) }
        let users = users, tokens = tokens
        return !indexByPhone.filePending().contains { users[$0.filed].phone == users[$0.kept].phone }
            && !indexByUserID.filePending().contains { users[$0.filed].userID == users[$0.kept].userID }
            && !indexByToken.filePending().contains { tokens[$0.filed].secret == tokens[$0.kept].secret }
    }

    private enum Keys {
        static let root = SeedKeys(["users"])
        static let user = SeedKeys(["e164_phone_number", "user_id", "name", "keyfile_password"], optional: ["auth_tokens", "accounts"])
    }

    private mutating func addUser(_ item: inout SeedReader, text: UnsafeBufferPointer<UInt8>, indexingAsRead: Bool) throws(SeedError) {
        var user = OTPUser(userID: OTPSecret(), phone: NormalizedPhone(), name: "", keyfilePassword: OTPSecret())
        // Each field is read by a mutating method: a closure that used `self` (captured, so perhaps
        // aliased) would copy the whole directory, one retain per table, for every lookup.
        try item.members(Keys.user) { key, value throws(SeedError) in
            try read(key, &value, into: &user, text: text, indexingAsRead: indexingAsRead)
        }
        add(user, indexed: indexingAsRead)
    }

    /// `indexingAsRead`: each key is looked up as it is read, so that a duplicate is an error there.
    private mutating func read(_ key: Int, _ value: inout SeedReader, into user: inout OTPUser,
                               text: UnsafeBufferPointer<UInt8>, indexingAsRead: Bool) throws(SeedError) {
        switch key {
        case 0:
            let phone = try Self.phone(&value, text: text)
            if indexingAsRead, index(phone: phone) != nil { throw value.fail("duplicate number \(phone.text)") }
            user.phone = phone
        case 1:
            user.userID = try Self.secret(&value, length: OTPSecret.userIDLength, text: text)
            if indexingAsRead, index(userID: user.userID) != nil { throw value.fail("duplicate user_id \(user.userIDText)") }
        case 2: user.name = try OTPUser.name(&value)
        case 3: user.keyfilePassword = try Self.secret(&value, length: OTPSecret.length, text: text)
        case 4:
            try value.elements { token throws(SeedError) in
                try readToken(&token, into: &user, text: text, indexingAsRead: indexingAsRead)
            }
        default: user.accounts = try OTPAccount.list(&value)
        }
    }

    private mutating func readToken(_ value: inout SeedReader, into user: inout OTPUser,
                                    text: UnsafeBufferPointer<UInt8>, indexingAsRead: Bool) throws(SeedError) {
        let token = try Self.secret(&value, length: OTPSecret.length, text: text)
        if indexingAsRead, tokenEntry(token) != nil { throw value.fail("duplicate token \(token.text(length: OTPSecret.length))") }
        Self.link(newToken(token, owner: users.count, indexed: indexingAsRead), to: &user, in: &tokens)
    }

    private static func phone(_ value: inout SeedReader, text: UnsafeBufferPointer<UInt8>) throws(SeedError) -> NormalizedPhone {
        if let bytes = plainString(value, length: 12, in: text), let phone = NormalizedPhone(utf8: bytes) { return phone }
        guard let phone = NormalizedPhone(try value.string()) else {
            throw value.fail("expected a valid US number written as +1 and ten digits")
        }
        return phone
    }

    private static func secret(_ value: inout SeedReader, length: Int, text: UnsafeBufferPointer<UInt8>) throws(SeedError) -> OTPSecret {
        if let bytes = plainString(value, length: length, in: text), let secret = OTPSecret(utf8: bytes, length: length) {
            return secret
        }
        guard let secret = OTPSecret(try value.string(), length: length) else {
            throw value.fail("expected \(length) characters of A-Z, a-z, 0-9, - and _")
        }
        return secret
    }

    /// What is between the quotes when `value` is a string of `length` bytes, straight from the
    /// document's `text` without making a String (the reader checks and skips the value after).
    /// It may hold escapes or quotes: the caller accepts only characters that need none, and
    /// otherwise reads the value as a String, which also gives the usual errors.
    private static func plainString(_ value: SeedReader, length: Int, in text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        let start = value.offset + 1, end = start + length
        guard end < text.count, text[value.offset] == UInt8(ascii: "\""), text[end] == UInt8(ascii: "\"") else { return nil }
        return UnsafeBufferPointer(rebasing: text[start..<end])
    }
}

/// Only the directory is written to the state; pending codes and the outbox last one run.
extension OTPState: TouchedState {
    public var changes: StateChanges {
        get { directory.changes }
        set { directory.changes = newValue }
    }

    public func seedRow(at path: RowPath) -> [UInt8]? {
        guard path.steps[0].member == "users", case let .string(phone)? = path.steps[0].key,
              let index = directory.index(phone: phone) else { return nil }
        return OrderedJSON.encode(OTPSeedFile.User(directory, index), escapeSlash: false)
    }
}

/// The seed file's shape, written by `GET /_mock/state/otp`.
struct OTPSeedFile: Encodable {
    struct User: Encodable {
        var userID: String
        var phone: String
        var name: String
        var keyfilePassword: String
        var authTokens: [String]
        var accounts: [OTPAccount]?

        enum CodingKeys: String, CodingKey {
            case userID = "user_id", phone = "e164_phone_number", name, keyfilePassword = "keyfile_password"
            case authTokens = "auth_tokens", accounts
        }

        init(_ directory: OTPDirectory, _ index: Int) {
            let user = directory[index]
            (userID, phone, name, keyfilePassword, authTokens, accounts) =
                (user.userIDText, user.phone.text, user.name, user.keyfilePasswordText, directory.tokens(of: index), user.accounts)
        }
    }

    var users: [User]

    init(_ directory: OTPDirectory) {
        users = directory.users.indices.map { User(directory, $0) }
    }
}

// MARK: Reload

extension OTPState: TokenCarrying {
    public var liveTokenOwners: [(token: String, user: String)] {
        directory.users.indices.flatMap { index in directory.tokens(of: index).map { ($0, directory[index].phone.text) } }
    }

    /// Pending codes and the outbox start afresh, as after a reset; the user's token comes back
    /// after the seed's own, and counts as issued, so the bound on issued tokens still holds.
    public mutating func keepLiveToken(_ token: String, of user: String, from old: OTPState) -> Bool {
        directory.keepToken(token, ofUserWithPhone: user)
    }
}

extension OTPDirectory {
    fileprivate mutating func keepToken(_ text: String, ofUserWithPhone phone: String) -> Bool {
        guard let index = index(phone: phone), let secret = OTPSecret(text, length: OTPSecret.length),
              tokenEntry(secret) == nil else { return false }
        Self.link(newToken(secret, owner: index), to: &users[index], in: &tokens)
        _ = issuedTokens.record(text, limit: .max)
        return true
    }
}
