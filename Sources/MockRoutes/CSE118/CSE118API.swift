import Foundation
import MockHTTP
import MockKit
import MockSupport

/// UC Santa Cruz CSE 118 "cse118.com" Slack-like API (docs/apis/cse118.md), served identically
/// under `/api/v2` and `/api/v1`, trailing slash tolerated. Each route says who may call it.
public final class CSE118API: CourseAPI {
    public typealias Failure = CSE118Error
    public static let name = "cse118"
    static let basePaths = ["/api/v2", "/api/v1"]

    public var routes: RouteGroup {
        let endpoints: [(Methods, String, Handler)] = [
            (.post, "/login", endpoint(login)), // anyone
            ([.get, .head], "/workspace", endpoint(listWorkspaces)), // any user
            (.post, "/workspace", endpoint(createWorkspace)), // any user
            (.delete, "/workspace/{id}", endpoint(deleteWorkspace)), // owner
            ([.get, .head], "/workspace/{id}/channel", endpoint(listChannels)), // owner or member
            (.post, "/workspace/{id}/channel", endpoint(createChannel)), // owner
            (.delete, "/channel/{id}", endpoint(deleteChannel)), // workspace owner
            ([.get, .head], "/channel/{id}/message", endpoint(listMessages)), // owner or member
            (.post, "/channel/{id}/message", endpoint(postMessage)), // owner or member
            (.delete, "/message/{id}", endpoint(deleteMessage)), // poster or workspace owner
            ([.get, .head], "/member", endpoint(listMembers)), // any user
            ([.get, .head], "/workspace/{id}/member", endpoint(listWorkspaceMembers)), // owner or member
            (.post, "/workspace/{id}/member", endpoint(addMember)), // owner
            (.delete, "/workspace/{id}/member", endpoint(removeMember)), // owner
            (.put, "/reset", endpoint(resetCaller)), // any user (own fixtures)
        ]
        return routeGroup(matching: PathMatching(toleratesTrailingSlash: true), Self.basePaths.flatMap { base in
            endpoints.map { Route($0.0, base + $0.1, $0.2) }
                + [Route([.get, .head], base + "/api-docs", { _ in .html(CSE118OpenAPI.html(base: base)) })]
        })
    }

    public var openAPIDocument: [UInt8]? { CSE118OpenAPI.document }

    public let state: SeededStore<CSE118State, CSE118State>
    private let random: RandomStream

    public let context: SeedContext

    public init(seed: CSE118State, context: SeedContext) {
        // A reset drops every token, those of a loaded state document included (docs/apis/cse118.md#reset).
        state = SeededStore(seed: seed) { seed in
            var fresh = seed
            fresh.forgetTokens()
            return fresh
        }
        self.context = context
        random = context.options.randomness.stream(Self.name)
    }

    /// Channels and messages sit nested in the workspaces, and are counted too.
    public static func tableCounts(of seed: CSE118State) -> TableCounts {
        TableCounts(["members": seed.members.count, "workspaces": seed.workspaces.count, "channels": seed.channels.count,
                     "messages": seed.messages.count])
    }

    /// The loaded document's tokens work until the next reset; `PUT /reset` still restores the
    /// seed's fixtures.
    public func loadingSeed(_ seed: CSE118State) -> ((inout CSE118State) -> Void)? {
        { $0 = $0.keepingFixtures(of: seed) }
    }

    public var summary: APISummary {
        let seed = state.seed, members = seed.members
        return APISummary(title: "UC Santa Cruz CSE 118 workspaces", basePaths: Self.basePaths,
                          note: "each student has a private copy of the graded fixtures; PUT /api/v2/reset restores the caller's",
                          seeded: members.rows, count: members.count, accounts: { .init(login: $0.email, password: $0.password, detail: $0.name) })
    }

    // MARK: Endpoints

    private func login(_ request: Request) throws(CSE118Error) -> Response {
        let input = try CSE118Input(request, body: .credentials)
        let issuedAt = Int(options.clock().timeIntervalSince1970)
        return try state.withLock { state throws(CSE118Error) in
            guard let member = state.member(email: input[field: "email"]),
                  member.password.hasSameBytes(as: input[field: "password"]) else { throw .invalidCredentials }
            let token = CSE118Token.mint(for: member, issuedAt: issuedAt, random: random)
            state.issueToken(token, member: member.id, limit: options.issuedTokenLimit)
            return Self.json(object: ["id": member.id.text, "name": member.name, "role": "member", "accessToken": token])
        }
    }

    private func listWorkspaces(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request) { state, caller, _ throws(CSE118Error) in
            Self.json(state.workspaces(visibleTo: caller).map { $0.shape(channels: state.channelCount(of: $0)) })
        }
    }

    private func createWorkspace(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request, body: .name) { state, caller, input throws(CSE118Error) in
            let owned = state.workspaces(visibleTo: caller).filter { $0.owner == caller }.count
            if let full = refusedStoring([input[field: "name"]], in: "workspaces of that member", holding: owned,
                                         cap: Self.rowCap) { return full }
            let workspace = state.createWorkspace(id: .random(random), name: input[field: "name"], owner: caller)
            return Self.json(workspace.shape(channels: 0), status: 201)
        }
    }

    private func deleteWorkspace(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request, pathID: true) { state, caller, input throws(CSE118Error) in
            let workspace = try state.visibleWorkspace(input.id, to: caller)
            guard workspace.owner == caller else { throw .ownerOnly }
            let channels = state.channelCount(of: workspace)
            let removed = state.removeWorkspace(workspace.id)
            releaseStored(removed, rows: removed.count)
            return Self.json(workspace.shape(channels: channels))
        }
    }

    private func listChannels(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request, pathID: true) { state, caller, input throws(CSE118Error) in
            let workspace = try state.visibleWorkspace(input.id, to: caller)
            return Self.json(state.channels(of: workspace).map { $0.shape(messages: state.messageCount(of: $0)) })
        }
    }

    private func createChannel(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request, pathID: true, body: .name) { state, caller, input throws(CSE118Error) in
            let workspace = try state.visibleWorkspace(input.id, to: caller)
            guard workspace.owner == caller else { throw .ownerOnly }
            if let full = refusedStoring([input[field: "name"]], in: "channels in that workspace", holding: state.channelCount(of: workspace),
                                         cap: Self.rowCap) { return full }
            let channel = state.addChannel(id: .random(random), name: input[field: "name"], to: input.id)
            return Self.json(channel.shape(messages: 0), status: 201)
        }
    }

    private func deleteChannel(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request, pathID: true) { state, caller, input throws(CSE118Error) in
            let (owner, channel) = try state.visibleChannel(input.id, to: caller)
            guard owner == caller else { throw .ownerOnly }
            let messages = state.messageCount(of: channel)
            let removed = state.removeChannel(channel.id)
            releaseStored(removed, rows: removed.count)
            return Self.json(channel.shape(messages: messages))
        }
    }

    private func listMessages(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request, pathID: true) { state, caller, input throws(CSE118Error) in
            let channel = try state.visibleChannel(input.id, to: caller).channel
            // By `posted`, ties in creation order.
            let messages = state.messages(of: channel).enumerated()
                .sorted { ($0.element.posted, $0.offset) < ($1.element.posted, $1.offset) }
            return Self.json(messages.map(\.element.shape))
        }
    }

    private func postMessage(_ request: Request) throws(CSE118Error) -> Response {
        let posted = CSE118Time(options.clock())
        return try withCaller(request, pathID: true, body: .content) { state, caller, input throws(CSE118Error) in
            let channel = try state.visibleChannel(input.id, to: caller).channel
            if let full = refusedStoring([input[field: "content"]], in: "messages in that channel",
                                         holding: state.messageCount(of: channel), cap: Self.rowCap) { return full }
            let message = CSE118State.Message(id: .random(random), member: caller, posted: posted, content: input[field: "content"],
                                              channel: channel.id)
            state.addMessage(message)
            return Self.json(message.shape, status: 201)
        }
    }

    private func deleteMessage(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request, pathID: true) { state, caller, input throws(CSE118Error) in
            let (owner, message) = try state.visibleMessage(input.id, to: caller)
            guard caller == message.member || caller == owner else { throw .posterOrOwnerOnly }
            state.removeMessage(message.id)
            releaseStored([message.content])
            return Self.json(message.shape)
        }
    }

    private func listMembers(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request) { state, _, _ throws(CSE118Error) in
            Self.json(state.sortedByName(Array(state.members.rows)))
        }
    }

    private func listWorkspaceMembers(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request, pathID: true) { state, caller, input throws(CSE118Error) in
            let workspace = try state.visibleWorkspace(input.id, to: caller)
            return Self.json(state.sortedByName(workspace.members.compactMap { state.members[$0] }))
        }
    }

    private func addMember(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request, pathID: true, takesMid: true) { state, caller, input throws(CSE118Error) in
            guard try state.visibleWorkspace(input.id, to: caller).owner == caller else { throw .ownerOnly }
            guard let member = state.members[input.mid] else { throw .memberNotFound }
            guard member.id != caller else { throw .memberOwnsWorkspace }
            guard !state.isMember(member.id, of: input.id) else { throw .memberAlreadyInWorkspace }
            state.addMember(member.id, to: input.id)
            return Self.json(CSE118Shape.Member(id: member.id.text, name: member.name), status: 201)
        }
    }

    private func removeMember(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request, pathID: true, takesMid: true) { state, caller, input throws(CSE118Error) in
            guard try state.visibleWorkspace(input.id, to: caller).owner == caller else { throw .ownerOnly }
            guard let member = state.members[input.mid] else { throw .memberNotFound }
            guard state.isMember(member.id, of: input.id) else { throw .memberNotInWorkspace }
            state.removeMember(member.id, from: input.id)
            return Self.json(CSE118Shape.Member(id: member.id.text, name: member.name))
        }
    }

    private func resetCaller(_ request: Request) throws(CSE118Error) -> Response {
        try withCaller(request) { state, caller, _ throws(CSE118Error) in
            let removed = state.restoreFixtures(of: caller)
            releaseStored(removed, rows: removed.count)
            return Self.json(object: [:])
        }
    }

    // MARK: Authorization and helpers

    /// Runs an endpoint under the state lock in the check order of docs/apis/cse118.md#errors: token, then the
    /// path id, query and body (read before taking the lock), then whatever the endpoint checks.
    private func withCaller(_ request: Request, pathID: Bool = false, takesMid: Bool = false,
                            body schema: CSE118Input.BodySchema? = nil,
                            _ operation: (inout CSE118State, _ caller: CSE118ID, CSE118Input) throws(CSE118Error) -> Response)
        throws(CSE118Error) -> Response {
        let input = Result { () throws(CSE118Error) in
            try CSE118Input(request, pathID: pathID, takesMid: takesMid, body: schema)
        }
        return try state.withLock { state throws(CSE118Error) in
            let caller = try caller(of: request, in: state)
            return try operation(&state, caller, try input.get())
        }
    }

    /// The member behind `Authorization: Bearer <token>` (`Bearer` in any case, one or more spaces).
    private func caller(of request: Request, in state: CSE118State) throws(CSE118Error) -> CSE118ID {
        guard let value = request.headers["Authorization"], !value.isEmpty else { throw .authorizationRequired }
        let scheme = value.prefix(6), rest = value.dropFirst(6)
        guard scheme.lowercased() == "bearer", rest.first == " " else { throw .invalidToken(nil) }
        let token = String(rest.drop { $0 == " " })
        guard let caller = state.tokens[ExactText(token)]?.member else { throw .invalidToken(self.state.endedByReload(token)) }
        return caller
    }
}
