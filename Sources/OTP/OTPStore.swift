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
    var userID: String
    var phone: String
    var name: String
    var keyfilePassword: String
    /// Every live token of the user, oldest first: first those a seed or state document gave,
    /// which never end, then those logins issued (docs/apis/otp.md#tokens).
    var authTokens: [String]
    var documentTokenCount = 0
    /// nil until accounts were first saved: the user object then has no `accounts` key.
    var accounts: [OTPAccount]?

    static let maxNameLength = 64

    /// A posted or seeded name: any string of at most 64 Unicode scalars, `""` included.
    static func name(_ value: inout SeedReader) throws(SeedError) -> String {
        let name = try value.string()
        guard name.unicodeScalars.count <= maxNameLength else { throw value.fail("longer than \(maxNameLength) characters") }
        return name
    }
}

/// Users and their live tokens: what the seed and the state document hold.
public struct OTPDirectory {
    private(set) var users: [OTPUser] = []
    var changes = StateChanges()
    /// Numbers, tokens and user ids compare byte for byte, as the real server's strings did.
    private var indexByPhone: [ExactText: Int] = [:]
    private var indexByToken: [ExactText: Int] = [:]
    private var userIDs: Set<ExactText> = []
    /// The tokens logins issued, which end oldest first past a limit.
    private var issuedTokens = IssuedTokens()

    func index(phone: String) -> Int? { indexByPhone[ExactText(phone)] }

    func index(token: String) -> Int? { indexByToken[ExactText(token)] }

    subscript(index: Int) -> OTPUser { users[index] }

    /// The user with that number, created (no name, no accounts) when there is none yet.
    mutating func findOrCreate(phone: String) -> (index: Int, created: Bool) {
        if let index = index(phone: phone) { return (index, false) }
        var userID = OTPSecret.make(length: OTPSecret.userIDLength)
        while userIDs.contains(ExactText(userID)) { userID = OTPSecret.make(length: OTPSecret.userIDLength) }
        add(OTPUser(userID: userID, phone: phone, name: "", keyfilePassword: OTPSecret.make(length: OTPSecret.length),
                    authTokens: [], accounts: nil))
        touch(users.count - 1)
        return (users.count - 1, true)
    }

    /// A login's new token for the user; past `limit` issued ones, the oldest issued stops working.
    mutating func issueToken(to index: Int, limit: Int) -> String {
        var token = OTPSecret.make(length: OTPSecret.length)
        while self.index(token: token) != nil { token = OTPSecret.make(length: OTPSecret.length) }
        indexByToken[ExactText(token)] = index
        users[index].authTokens.append(token)
        touch(index)
        if let ended = issuedTokens.record(token, limit: limit), let owner = indexByToken.removeValue(forKey: ExactText(ended)) {
            // The oldest issued token overall is its owner's oldest issued one: right after the document's.
            users[owner].authTokens.remove(at: users[owner].documentTokenCount)
            touch(owner)
        }
        return token
    }

    mutating func update(_ index: Int, name: String?, accounts: [OTPAccount]?) {
        if let name { users[index].name = name }
        if let accounts { users[index].accounts = accounts }
        touch(index)
    }

    /// A user's row is written whole: its tokens and accounts are part of it.
    private mutating func touch(_ index: Int) {
        changes.touch(.row("users", "e164_phone_number", .string(users[index].phone)))
    }

    private mutating func add(_ user: OTPUser) {
        indexByPhone[ExactText(user.phone)] = users.count
        for token in user.authTokens { indexByToken[ExactText(token)] = users.count }
        userIDs.insert(ExactText(user.userID))
        users.append(user)
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

/// Random tokens, keyfile passwords and user ids: URL-safe base64 characters, each drawn from the
/// system's cryptographic generator (as many bits as base64 of 24 or 18 random bytes).
enum OTPSecret {
    static let length = 32
    static let userIDLength = 24
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)

    static func make(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String(String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
    }

    static func isWellFormed(_ text: String, length: Int) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy { byte in
            (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 95
        }
    }

    /// Six digits, leading zeros kept.
    static func code() -> String {
        var generator = SystemRandomNumberGenerator()
        let number = String(Int.random(in: 0...999_999, using: &generator))
        return String(repeating: "0", count: 6 - number.count) + number
    }
}

// MARK: Seed format

extension OTPDirectory {
    /// Reads and checks a seed or state document (`Seed/otp.json`, docs/apis/otp.md#accounts).
    init(seed document: SeedJSON) throws(SeedError) {
        // Reading a seed is no change: nothing is recorded meanwhile.
        changes.isRecording = false
        defer { changes = StateChanges() }
        try document.read { root throws(SeedError) in
            try root.members(Keys.root) { _, value throws(SeedError) in
                // Sized up front, so the tables of a large seed are not rehashed as they fill.
                let count = try value.count()
                users.reserveCapacity(count)
                indexByPhone.reserveCapacity(count)
                indexByToken.reserveCapacity(count)
                userIDs.reserveCapacity(count)
                try value.elements { item throws(SeedError) in try addUser(&item) }
            }
        }
    }

    private enum Keys {
        static let root = SeedKeys(["users"])
        static let user = SeedKeys(["e164_phone_number", "user_id", "name", "keyfile_password"], optional: ["auth_tokens", "accounts"])
    }

    private mutating func addUser(_ item: inout SeedReader) throws(SeedError) {
        var user = OTPUser(userID: "", phone: "", name: "", keyfilePassword: "", authTokens: [], accounts: nil)
        try item.members(Keys.user) { key, value throws(SeedError) in
            switch key {
            case 0:
                user.phone = try value.string()
                guard PhoneNumber.isNormalized(user.phone) else {
                    throw value.fail("expected a valid US number written as +1 and ten digits")
                }
                if index(phone: user.phone) != nil { throw value.fail("duplicate number \(user.phone)") }
            case 1:
                user.userID = try Self.secret(&value, length: OTPSecret.userIDLength)
                if userIDs.contains(ExactText(user.userID)) { throw value.fail("duplicate user_id \(user.userID)") }
            case 2: user.name = try OTPUser.name(&value)
            case 3: user.keyfilePassword = try Self.secret(&value, length: OTPSecret.length)
            case 4:
                try value.elements { tokenValue throws(SeedError) in
                    let token = try Self.secret(&tokenValue, length: OTPSecret.length)
                    if index(token: token) != nil || user.authTokens.contains(where: { $0.hasSameBytes(as: token) }) {
                        throw tokenValue.fail("duplicate token \(token)")
                    }
                    user.authTokens.append(token)
                }
                user.documentTokenCount = user.authTokens.count
            default: user.accounts = try OTPAccount.list(&value)
            }
        }
        add(user)
    }

    private static func secret(_ value: inout SeedReader, length: Int) throws(SeedError) -> String {
        let text = try value.string()
        guard OTPSecret.isWellFormed(text, length: length) else {
            throw value.fail("expected \(length) characters of A-Z, a-z, 0-9, - and _")
        }
        return text
    }
}

/// Only the directory is written to the state; pending codes and the outbox last one run.
extension OTPState: LoggedState {
    public var changes: StateChanges {
        get { directory.changes }
        set { directory.changes = newValue }
    }

    public func seedRow(at path: RowPath) -> [UInt8]? {
        guard path.steps[0].member == "users", case let .string(phone)? = path.steps[0].key,
              let index = directory.index(phone: phone) else { return nil }
        return OrderedJSON.encode(OTPSeedFile.User(directory[index]), escapeSlash: false)
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

        init(_ user: OTPUser) {
            (userID, phone, name, keyfilePassword, authTokens, accounts) =
                (user.userID, user.phone, user.name, user.keyfilePassword, user.authTokens, user.accounts)
        }
    }

    var users: [User]

    init(_ directory: OTPDirectory) {
        users = directory.users.map(User.init)
    }
}
