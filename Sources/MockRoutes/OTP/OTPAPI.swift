import Foundation
import MockHTTP
import MockKit
import MockSupport

/// UC Davis ECS 189E one-time-code login and wallet user (docs/apis/otp.md). Bodies are JSON whatever
/// the `Content-Type`; every answer of the three endpoints is HTTP 200: only the body's `status` tells success.
public final class OTPAPI: CourseAPI {
    public typealias Failure = OTPError
    public static let name = "otp"

    public var routes: RouteGroup {
        routeGroup([
            Route(.post, "/api/send_verification_code", endpoint(sendVerificationCode)), // phone_number
            Route(.post, "/api/verify_code", endpoint(verifyCode)), // e164_phone_number, code
            Route(.post, "/api/user", endpoint(user)), // x-authtoken; {} reads, name and/or accounts write
        ])
    }

    public var openAPIDocument: [UInt8]? { OTPOpenAPI.document }

    public var adminRoutes: [Route] {
        [Route([.get, .head], "/_mock/otp/outbox", outbox)] // ?phone=P: the codes that would have been texted
    }

    public let state: SeededStore<OTPDirectory, OTPState>
    private let random: RandomStream

    public let context: SeedContext

    public init(seed: OTPDirectory, context: SeedContext) {
        state = SeededStore(seed: seed, fresh: OTPState.init(directory:))
        self.context = context
        random = context.options.randomness.stream(Self.name)
    }

    public func stateJSON(of state: OTPState) -> [UInt8] {
        state.directory.seedDocument
    }

    /// A load replaces users and tokens; pending codes and the outbox stay (docs/apis/otp.md#control-surface). A reset
    /// goes back to the seed users and tokens, with no pending codes and an empty outbox.
    public func loadingSeed(_ seed: OTPDirectory) -> ((inout OTPState) -> Void)? {
        { $0.directory = seed }
    }

    public var summary: APISummary {
        let seed = state.seed
        let codes = options.otpCode.map { "every code is \($0) (--otp-code)" }
            ?? "codes are printed on this console and listed at GET /_mock/otp/outbox"
        return APISummary(title: "UC Davis ECS 189E one-time codes", basePaths: ["/api/"], note: codes,
                          seeded: seed.users.rows, count: seed.users.count, accounts: { user in
                              .init(login: user.phone, password: nil,
                                    detail: "\(user.name), x-authtoken \(user.authTokens.first ?? "(none)")") })
    }

    // MARK: Endpoints

    private func sendVerificationCode(_ request: Request) throws(OTPError) -> Response {
        let phone = try Self.phone(OTPInput(request).optionalString("phone_number"))
        let code = options.otpCode ?? Self.code(random)
        let now = nowMillis()
        try state.withLock { state throws(OTPError) in
            try state.issueCode(code, to: phone, nowMillis: now, ttlMillis: options.otpTTL * 1000)
        }
        // Printed even under --quiet: it stands in for the text message.
        options.console("otp: code \(code) for \(phone)")
        return Self.json(object: ["status": "ok"])
    }

    private func verifyCode(_ request: Request) throws(OTPError) -> Response {
        let body = try OTPInput(request)
        let number = try body.optionalString("e164_phone_number")
        let attempt = try body.optionalString("code") ?? ""
        let phone = try Self.phone(number)
        let now = nowMillis()
        return try state.withLock { state throws(OTPError) in
            try state.checkCode(of: phone, attempt: attempt, nowMillis: now)
            let known = state.directory.user(phone: phone)
            let user = known ?? state.directory.newUser(phone: phone, random: random)
            if known == nil {
                // Refused, the code stays pending and nothing is stored.
                if let full = refusedStoring([user.phone, user.userID, user.keyfilePassword], in: "users",
                                             holding: state.directory.users.count, cap: Self.rowCap) { return full }
                state.directory.add(user)
            }
            state.useCode(of: phone)
            let token = state.directory.issueToken(to: phone, limit: options.issuedTokenLimit, random: random)
            // The user object carries no tokens: the row before this one was added answers.
            return Self.json(OTPUserAnswer(authToken: token, isNewUser: known == nil ? 1 : 0, user: OTPUserShape(user)))
        }
    }

    private func user(_ request: Request) throws(OTPError) -> Response {
        let token = (request.headers["x-authtoken"] ?? "").trimmingCharacters(in: [" ", "\t"])
        // The token is checked before the body is read (docs/apis/otp.md#errors).
        guard state.withLock({ $0.directory.user(token: token) }) != nil else {
            throw .invalidAuthToken(state.endedByReload(token))
        }
        let body = try OTPInput(request)
        var name: String?
        var accounts: [OTPAccount]?
        if let value = body.object["name"] {
            do { name = try SeedJSON(value).read { value throws(SeedError) in try OTPUser.name(&value) } } catch { throw .invalidName }
        }
        if let value = body.object["accounts"] {
            do { accounts = try SeedJSON(value).read { value throws(SeedError) in try OTPAccount.list(&value) } } catch { throw .invalidAccounts }
        }
        return try state.withLock { state throws(OTPError) in
            // Checked again: a reset may have ended the token since.
            guard let user = state.directory.user(token: token) else { throw .invalidAuthToken(self.state.endedByReload(token)) }
            // A save is charged what it makes the row grow by (docs/apis/otp.md#size-limits).
            let replaced = OTPUser.storedTexts(name: name.map { _ in user.name }, accounts: accounts.map { _ in user.accounts ?? [] })
            if let full = refusedChanging(replaced, to: OTPUser.storedTexts(name: name, accounts: accounts)) { return full }
            let updated = state.directory.update(user.phone, name: name, accounts: accounts) ?? user
            return Self.json(OTPUserAnswer(user: OTPUserShape(updated)))
        }
    }

    /// The outbox, newest first; `?phone=` in any accepted form keeps that number's texts only.
    private func outbox(_ request: Request) -> Response {
        let query = FormDecoding.pairs(Array((request.query ?? "").utf8), malformed: .keepLiteral)
        var wanted: String?
        if let filter = FormDecoding.last("phone", in: query) {
            guard let phone = PhoneNumber.normalize(filter) else {
                return Response.json(400, ["error": "invalid_phone_number",
                                           "detail": "phone must be a US number such as +15305550100"])
            }
            wanted = phone
        }
        let messages = state.withLock { state in
            state.outbox.reversed().filter { wanted == nil || $0.phone == wanted }
        }
        return .json(200, OrderedJSON.encode(messages, escapeSlash: false))
    }

    // MARK: Helpers

    /// Six digits, leading zeros kept.
    private static func code(_ random: RandomStream) -> String {
        let number = String(random.number(below: 1_000_000))
        return String(repeating: "0", count: 6 - number.count) + number
    }

    /// An absent, `null` or malformed number is `invalid_phone_number`.
    private static func phone(_ text: String?) throws(OTPError) -> String {
        guard let text, let phone = PhoneNumber.normalize(text) else { throw .invalidPhoneNumber }
        return phone
    }

    /// The injected clock, in whole milliseconds so expiry times add up exactly.
    private func nowMillis() -> Int {
        Int((options.clock().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
