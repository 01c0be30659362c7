import MockHTTP
import MockKit
import MockSupport

/// One wallet account, three strings kept exactly as the client sent them (docs/apis/otp.md#endpoints).
struct OTPAccount: Encodable, Equatable, SeedRow {
    var id: String
    var amount: String
    var name: String

    enum CodingKeys: String, CodingKey {
        case id = "ID", amount, name
    }

    /// A posted or seeded account; its other keys are dropped.
    init(seed account: SeedFields) throws(SeedError) {
        id = try account.string("ID")
        // The app turns it into a Double: anything else would silently become 0.0 there.
        amount = try account.string("amount", where: { DecimalLiteral.matches($0.utf8) },
                                    else: "expected a decimal number in a string")
        name = try account.string("name")
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("ID", id)
        seed.field("amount", amount)
        seed.field("name", name)
    }

    /// A posted or seeded account list (docs/apis/otp.md#endpoints).
    static func list(_ value: inout SeedReader) throws(SeedError) -> [OTPAccount] {
        var accounts: [OTPAccount] = []
        try value.objects { fields throws(SeedError) in accounts.append(try OTPAccount(seed: fields)) }
        return accounts
    }
}

/// One user, as the seed document and `GET /_mock/state/otp` hold it (docs/apis/otp.md#accounts).
struct OTPUser: TableRow {
    /// `+1` and ten digits, as `PhoneNumber.normalize` gives it.
    var phone: String
    var userID: String
    var name: String
    var keyfilePassword: String
    /// The live tokens: the document's first, which never end, then those verifies issued, oldest
    /// first (docs/apis/otp.md#tokens).
    var authTokens: [String] = []
    /// nil until accounts were first saved: the user object then has no `accounts` key.
    var accounts: [OTPAccount]?

    static let keyField = "e164_phone_number"
    var key: ExactText { ExactText(phone) }

    static let maxNameLength = 64

    /// A posted name: any string of at most 64 Unicode scalars, `""` included.
    static func name(_ value: inout SeedReader) throws(SeedError) -> String {
        let name = try value.string()
        // No more scalars than UTF-8 bytes: only a long name needs counting.
        guard name.utf8.count <= maxNameLength || name.unicodeScalars.count <= maxNameLength else {
            throw value.fail("longer than \(maxNameLength) characters")
        }
        return name
    }

    /// The client text a save of `name` and `accounts` stores (those given), which the stored-text
    /// budget counts.
    static func storedTexts(name: String?, accounts: [OTPAccount]?) -> [String] {
        var texts = name.map { [$0] } ?? []
        for account in accounts ?? [] { texts += [account.id, account.amount, account.name] }
        return texts
    }

    /// A token a client can send back as it is in `x-authtoken`: visible ASCII, with spaces only
    /// inside (the server trims a header value's ends).
    static func isSendable(_ token: String) -> Bool {
        guard let first = token.utf8.first, let last = token.utf8.last, first != 0x20, last != 0x20 else { return false }
        return token.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }
}

/// Users and their live tokens: what the seed and the state document hold.
public struct OTPDirectory: StoredState {
    /// Found by number, user id or token, each compared byte for byte, as the real server's strings were.
    private(set) var users = Table<OTPUser>(indexes: [.unique(\.userID, field: "user_id")])
    /// Each live token's owner (a number): a user holds a list of tokens, which the table does not file.
    private var ownerByToken: [ExactText: String] = [:]
    /// The tokens verifies issued, which end oldest first past a limit.
    private var issuedTokens = IssuedTokens()

    public init() {}

    /// The number is checked before the user id, so a row repeating both names the number.
    public static let format = SeedFormat<OTPDirectory>(
        .table("users", \.users, duplicates: .atField, check: { user, directory in
            directory.users.contains(user.key) ? .field("e164_phone_number", "duplicate number \(user.phone)") : nil
        })
    )

    /// Files every token; one listed twice, by one user or two, is refused at its second place.
    public mutating func finishReading() throws(SeedError) {
        ownerByToken.reserveCapacity(users.count)
        for (row, user) in users.rows.enumerated() {
            for (place, token) in user.authTokens.enumerated()
            where ownerByToken.updateValue(user.phone, forKey: ExactText(token)) != nil {
                throw SeedError(path: "$.users[\(row)].auth_tokens[\(place)]", problem: "duplicate token \(token)")
            }
        }
    }

    func user(phone: String) -> OTPUser? { users[ExactText(phone)] }

    func user(token: String) -> OTPUser? {
        ownerByToken[ExactText(token)].flatMap { users[ExactText($0)] }
    }

    /// A new user with that number (no name, no accounts) and a fresh user id and keyfile password;
    /// `add` stores it.
    func newUser(phone: String, random: RandomStream) -> OTPUser {
        var userID = Self.secret(length: 24, random)
        while users.row(where: "user_id", is: userID) != nil { userID = Self.secret(length: 24, random) }
        return OTPUser(phone: phone, userID: userID, name: "", keyfilePassword: Self.secret(length: 32, random))
    }

    mutating func add(_ user: OTPUser) {
        users.insert(user)
    }

    /// A verify's new token for the user; past `limit` issued ones, the oldest issued stops working.
    mutating func issueToken(to phone: String, limit: Int, random: RandomStream) -> String {
        var token = Self.secret(length: 32, random)
        while ownerByToken[ExactText(token)] != nil { token = Self.secret(length: 32, random) }
        give(token, to: phone, limit: limit)
        return token
    }

    /// Appends the token to the user's; the oldest issued one ends if more than `limit` were.
    fileprivate mutating func give(_ token: String, to phone: String, limit: Int) {
        users.update(ExactText(phone)) { $0.authTokens.append(token) }
        ownerByToken[ExactText(token)] = phone
        if let ended = issuedTokens.record(token, limit: limit) { end(ended) }
    }

    /// The user after the change; `name` and `accounts` replace what the user had when given.
    mutating func update(_ phone: String, name: String?, accounts: [OTPAccount]?) -> OTPUser? {
        users.update(ExactText(phone)) { user in
            if let name { user.name = name }
            if let accounts { user.accounts = accounts }
            return user
        }
    }

    /// Ends an issued token: out of its owner's list, where it follows the document's tokens.
    private mutating func end(_ token: String) {
        guard let owner = ownerByToken.removeValue(forKey: ExactText(token)) else { return }
        users.update(ExactText(owner)) { user in
            user.authTokens.removeAll { $0.hasSameBytes(as: token) }
        }
    }

    /// `length` characters of URL-safe base64 (docs/apis/otp.md#tokens), each drawn from the API's stream.
    private static func secret(length: Int, _ random: RandomStream) -> String {
        String(decoding: (0..<length).map { _ in alphabet[Int(random.next() & 63)] }, as: UTF8.self)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}

/// Everything the API holds: the users, each number's pending code, and the texts "sent".
public struct OTPState {
    struct PendingCode {
        var code: String
        var expiresAtMillis: Int
        var failedAttempts = 0
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
    var outbox: [OTPOutboxMessage] = []

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
        let sentAt = ISO8601.format(milliseconds: nowMillis)
        let expiresAt = ISO8601.format(milliseconds: nowMillis + ttlMillis)
        outbox.append(OTPOutboxMessage(phone: phone, code: code, sentAt: sentAt, expiresAt: expiresAt))
        if outbox.count > Self.outboxLimit { outbox.removeFirst(outbox.count - Self.outboxLimit) }
    }

    /// docs/apis/otp.md#endpoints: a wrong code counts towards the lock; a right one stays pending
    /// until `useCode`, once the verify is sure to succeed.
    mutating func checkCode(of phone: String, attempt: String, nowMillis: Int) throws(OTPError) {
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
    }

    /// A right code works once.
    mutating func useCode(of phone: String) {
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

// MARK: Seed format (docs/apis/otp.md#what-the-seed-refuses-and-why)

extension OTPUser {
    init(seed row: SeedFields) throws(SeedError) {
        phone = try row.string("e164_phone_number", where: PhoneNumber.isNormalized,
                               else: "expected a valid US number written as +1 and ten digits")
        userID = try row.text("user_id")
        name = try row.string("name")
        keyfilePassword = try row.text("keyfile_password")
        authTokens = try row.optional("auth_tokens") { list throws(SeedError) in
            var tokens: [String] = []
            try list.elements { value throws(SeedError) in
                let token = try value.string()
                guard OTPUser.isSendable(token) else {
                    throw value.fail("expected a token a client can send in x-authtoken: visible ASCII, spaces only inside")
                }
                tokens.append(token)
            }
            return tokens
        } ?? []
        accounts = try row.optional("accounts") { list throws(SeedError) in try OTPAccount.list(&list) }
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("user_id", userID)
        seed.field("e164_phone_number", phone)
        seed.field("name", name)
        seed.field("keyfile_password", keyfilePassword)
        seed.field("auth_tokens", authTokens)
        if let accounts { seed.field("accounts", objects: accounts) { writer, account in account.write(to: &writer) } }
    }
}

/// Only the directory is written to the state; pending codes and the outbox last one run.
extension OTPState: LoggedState {
    public mutating func takeChanges() -> StateChanges {
        directory.takeChanges()
    }

    public func seedRow(at path: RowPath) -> [UInt8]? {
        directory.seedRow(at: path)
    }
}

// MARK: Reload

extension OTPState: TokenCarrying {
    public var liveTokenOwners: [(token: String, user: String)] {
        directory.users.rows.flatMap { user in user.authTokens.map { ($0, user.phone) } }
    }

    /// Pending codes and the outbox start afresh, as after a reset; the user's token comes back
    /// after the seed's own, and counts as issued, so the bound on issued tokens still holds.
    public mutating func keepLiveToken(_ token: String, of user: String, from old: OTPState) -> Bool {
        guard directory.user(phone: user) != nil, directory.user(token: token) == nil else { return false }
        directory.give(token, to: user, limit: .max)
        return true
    }
}
