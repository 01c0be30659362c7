import Foundation
import MockHTTP
import MockKit
import MockSupport

/// UNC Charlotte ITIS/CS 4180 message threads (docs/apis/threads.md). Every route but login and signup
/// needs `Authorization: Bearer <token>`; each handler reads its own fields.
public final class ThreadsAPI: CourseAPI {
    public typealias Failure = ThreadsError
    public static let name = "threads"

    public var routes: RouteGroup {
        routeGroup([
            Route(.post, "/api/login", endpoint(login)),
            Route(.post, "/api/signup", endpoint(signup)),
            Route([.get, .head], "/api/threads", endpoint(listThreads)),
            Route([.get, .head], "/api/thread", endpoint(listLegacyThreads)),
            Route(.post, "/api/thread/add", endpoint(addThread)),
            // A HEAD must never delete, so the delete paths leave it out (405).
            Route([.get, .post, .delete], "/api/thread/delete/{thread_id}", endpoint(deleteThread)),
            Route([.get, .head], "/api/messages/{thread_id}", endpoint(listMessages)),
            Route(.post, "/api/message/add", endpoint(addMessage)),
            Route([.get, .post, .delete], "/api/message/delete/{message_id}", endpoint(deleteMessage)),
        ])
    }

    public let state: SeededStore<ThreadsState, ThreadsState>
    /// The thread lists as last encoded, by whether legacy: most requests read them, few change them.
    private let encodedLists = AnswerCache<Bool>()
    private let clock: @Sendable () -> Date
    private let random: RandomStream

    public let context: SeedContext

    public init(seed: ThreadsState, context: SeedContext) {
        state = SeededStore(seed)
        self.context = context
        clock = context.options.clock
        random = context.options.randomness.stream(Self.name)
    }

    public var openAPIDocument: [UInt8]? { ThreadsOpenAPI.document }

    public var summary: APISummary {
        let seed = state.seed
        return APISummary(title: "UNC Charlotte ITIS/CS 4180 message threads", basePaths: ["/api/"],
                          seeded: seed.users.rows, count: seed.users.count, accounts: { user in
                              .init(login: user.email, password: user.password, detail: "\(user.fname) \(user.lname)")
                          })
    }

    // MARK: Endpoints

    private func login(_ request: Request) throws(ThreadsError) -> Response {
        let fields = try ThreadsInput(request)
        let email = try fields.required("email", else: "Email is required.").trimmingCharacters(in: .whitespaces)
        let password = try fields.required("password", else: "Password is required.")
        let now = unixNow()
        return try state.withLock { state throws(ThreadsError) in
            guard let user = state.user(email: email), user.password.hasSameBytes(as: password) else { throw .badCredentials }
            return Self.json(issueToken(for: user, in: &state, now: now))
        }
    }

    private func signup(_ request: Request) throws(ThreadsError) -> Response {
        let fields = try ThreadsInput(request)
        let email = try fields.required("email", else: "Email is required.").trimmingCharacters(in: .whitespaces)
        let password = try fields.required("password", else: "Password is required.")
        let fname = try fields.required("fname", else: "First name is required.")
        let lname = try fields.required("lname", else: "Last name is required.")
        let now = unixNow()
        return try state.withLock { state throws(ThreadsError) in
            guard state.user(email: email) == nil else { throw .emailExists }
            if let full = refusedStoring([email, password, fname, lname], in: "users", holding: state.users.count,
                                         cap: Self.rowCap) { return full }
            let user = try state.addUser(email: email, password: password, fname: fname, lname: lname)
            return Self.json(issueToken(for: user, in: &state, now: now))
        }
    }

    private func listThreads(_ request: Request) throws(ThreadsError) -> Response {
        try threadList(request, legacy: false)
    }

    /// The 2017–2018 list; it also marks the caller's token legacy (docs/apis/threads.md#two-generations-of-clients).
    private func listLegacyThreads(_ request: Request) throws(ThreadsError) -> Response {
        let caller = try state.read { state, _ throws(ThreadsError) in try authorize(request, in: state) }
        if !caller.isLegacy { state.withLock { $0.markLegacy(token: caller.token) } }
        return try threadList(request, legacy: true)
    }

    /// Every thread, in one generation's shape, encoded once per change of the state.
    private func threadList(_ request: Request, legacy: Bool) throws(ThreadsError) -> Response {
        try state.read { state, version throws(ThreadsError) in
            _ = try authorize(request, in: state)
            return Self.json(encodedLists.answer(for: version, kind: legacy) {
                let threads = state.threads.rows
                if legacy { return OrderedJSON.encode(ThreadList(threads: threads.map(state.legacyShape)), escapeSlash: true) }
                return OrderedJSON.encode(ThreadList(threads: threads.map(state.shape)), escapeSlash: true)
            })
        }
    }

    private func addThread(_ request: Request) throws(ThreadsError) -> Response {
        try authorizeOnly(request)
        let title = try ThreadsInput(request).required("title", else: "Title is required.")
        let createdAt = Stamp(unixSeconds: unixNow())
        return try state.withLock { state throws(ThreadsError) in
            let caller = try authorize(request, in: state)
            if let full = refusedStoring([title], in: "threads", holding: state.threads.count, cap: Self.rowCap) { return full }
            let thread = try state.addThread(userID: caller.userID, title: title, createdAt: createdAt)
            if caller.isLegacy { return Self.json(ThreadAdded(thread: state.legacyShape(thread))) }
            return Self.json(ThreadAdded(thread: state.shape(thread)))
        }
    }

    private func deleteThread(_ request: Request) throws(ThreadsError) -> Response {
        try state.withLock { state throws(ThreadsError) in
            let userID = try authorize(request, in: state).userID
            guard let id = Self.id(request[parameter: "thread_id"]), let thread = state.threads[id] else {
                throw .threadNotFound
            }
            guard thread.userID == userID else { throw .notYourThread }
            state.removeThread(id)
            return Self.json(object: ["status": "ok", "message": "Thread deleted"])
        }
    }

    private func listMessages(_ request: Request) throws(ThreadsError) -> Response {
        try state.read { state, _ throws(ThreadsError) in
            let caller = try authorize(request, in: state)
            guard let id = Self.id(request[parameter: "thread_id"]), state.threads.contains(id) else {
                throw .threadNotFound
            }
            // Newest first; messages stamped in the same second, higher id first.
            let messages = state.messages(inThread: id)
                .sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
            if caller.isLegacy { return Self.json(MessageList(messages: messages.map(state.legacyShape))) }
            return Self.json(MessageList(messages: messages.map(state.shape)))
        }
    }

    private func addMessage(_ request: Request) throws(ThreadsError) -> Response {
        try authorizeOnly(request)
        let fields = try ThreadsInput(request)
        let threadID = try fields.required("thread_id", else: "Thread id is required.")
        let text = try fields.required("message", else: "Message is required.")
        let createdAt = Stamp(unixSeconds: unixNow())
        return try state.withLock { state throws(ThreadsError) in
            let caller = try authorize(request, in: state)
            guard let id = Self.id(threadID.trimmingCharacters(in: .whitespaces)), state.threads.contains(id) else {
                throw .threadNotFound
            }
            if let full = refusedStoring([text], in: "messages", holding: state.messages.count, cap: Self.messageCap) {
                return full
            }
            let message = try state.addMessage(threadID: id, userID: caller.userID, text: text, createdAt: createdAt)
            if caller.isLegacy { return Self.json(MessageAdded(message: state.legacyShape(message))) }
            return Self.json(MessageAdded(message: state.shape(message)))
        }
    }

    private func deleteMessage(_ request: Request) throws(ThreadsError) -> Response {
        try state.withLock { state throws(ThreadsError) in
            let userID = try authorize(request, in: state).userID
            guard let id = Self.id(request[parameter: "message_id"]),
                  let message = state.messages[id] else { throw .messageNotFound }
            guard message.userID == userID else { throw .notYourMessage }
            state.removeMessage(id)
            releaseStored([message.text])
            return Self.json(object: ["status": "ok", "message": "Message deleted"])
        }
    }

    // MARK: Authorization and helpers

    /// Who sent `Authorization: BEARER <token>` (any letter case, any run of spaces or tabs).
    private func authorize(_ request: Request, in state: ThreadsState) throws(ThreadsError) -> Caller {
        guard let value = request.headers["Authorization"] else { throw .tokenNotFound }
        let bytes = value.utf8
        // Compared as bytes: this runs on every authorized request.
        guard bytes.count > 7, bytes.prefix(6).elementsEqual("bearer".utf8, by: { $0 | 0x20 == $1 }) else {
            throw .tokenNotFound
        }
        let afterScheme = bytes.dropFirst(6)
        guard let separator = afterScheme.first, separator == 32 || separator == 9 else { throw .tokenNotFound }
        let token = Substring(afterScheme.drop { $0 == 32 || $0 == 9 })
        guard !token.isEmpty else { throw .tokenNotFound }
        let key = ExactText(String(token))
        guard let record = state.tokens[key] else { throw .invalidToken(self.state.endedByReload(key.string)) }
        guard record.expires > unixNow() else { throw .expiredToken }
        return (key, record.userID, record.isLegacy)
    }

    /// Authorization comes before the body is read (docs/apis/threads.md#how-requests-are-read).
    private func authorizeOnly(_ request: Request) throws(ThreadsError) {
        _ = try state.read { state, _ throws(ThreadsError) in try authorize(request, in: state) }
    }

    private typealias Caller = (token: ExactText, userID: Int, isLegacy: Bool)

    private func issueToken(for user: ThreadsState.User, in state: inout ThreadsState, now: Int) -> AuthAnswer {
        let token = ThreadsToken.mint(userID: user.id, issuedAt: now, random: random)
        state.issueToken(token, userID: user.id, expires: now + ThreadsToken.lifetime, limit: options.issuedTokenLimit)
        return AuthAnswer(token: token, userID: user.id, userEmail: user.email, userFname: user.fname,
                          userLname: user.lname, userRole: user.role)
    }

    /// A path or body id: ASCII digits only.
    private static func id(_ text: String?) -> Int? {
        guard let text, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }

    private func unixNow() -> Int { Int(clock().timeIntervalSince1970) }

    /// Messages clients may store (docs/apis/threads.md#size-limits); users and threads: the kit's `rowCap`.
    static let messageCap = 1_000_000

    /// `/` written `\/`, as the PHP server wrote it.
    public static let escapesSlash = true
}
