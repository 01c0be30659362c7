import Foundation
import MockHTTP
import MockKit

/// The cse118 API's data: accounts, workspaces (each holding its channels and their messages)
/// and the live tokens.
///
/// Members, workspaces, channels and messages are found by id in O(1), and each member's
/// workspaces without looking at anyone else's, so a request about one row costs the same with 10
/// students or 100,000. Workspaces change only through the methods below, which keep the lookups
/// in step.
public struct CSE118State {
    struct Member: Identifiable {
        var id: String
        var name: String
        var email: String
        var password: String
    }

    struct Message: Identifiable {
        var id: String
        var member: String
        /// ISO-8601 with milliseconds; fixed width, so text order is time order.
        var posted: String
        var content: String
    }

    struct Channel: Identifiable {
        var id: String
        var name: String
        /// In the order they were posted.
        var messages = IDTable<Message>()
    }

    struct Workspace: Identifiable {
        var id: String
        var name: String
        var owner: String
        /// The student whose private fixture copy this is; nil for workspaces created at run time.
        var fixtureOf: String?
        /// Member ids, the owner not included.
        var members: [String]
        /// In the order they were created.
        var channels = IDTable<Channel>()
        /// Its place in every list: its position in the loaded document, or after all of those in
        /// creation order, so a restored fixture returns to its old place.
        var position: Int

        func isVisible(to caller: String) -> Bool { owner == caller || members.contains(caller) }
    }

    private(set) var members = IDTable<Member>()
    /// Lowercased email to member id: emails are unique whatever their letter case, and otherwise
    /// compared byte for byte.
    private var memberIDByEmail: [ExactText: String] = [:]
    private var workspaces: [String: Workspace] = [:]
    private var workspaceOfChannel: [String: String] = [:]
    private var channelOfMessage: [String: String] = [:]
    /// Member id → the workspaces they own or belong to (a handful each: an array is cheaper than a set).
    private var visibleTo: [String: [String]] = [:]
    /// Token → member id.
    private(set) var tokens: [ExactText: String] = [:]
    /// Member id → their live tokens, oldest first, at most `TokenLimit.perOwner` (docs/apis/cse118.md#tokens).
    private var tokensOfMember: [String: [String]] = [:]
    /// The seed's workspaces, in its order, which `PUT /reset` restores, and where each student's
    /// fixture copies are among them.
    private var seededWorkspaces: [Workspace] = []
    private var seededFixtures: [String: [Int]] = [:]
    private var nextPosition = 0
    public var changes = StateChanges()

    func member(_ id: String) -> Member? { members[id] }

    func member(email: String) -> Member? {
        memberIDByEmail[ExactText(email.lowercased())].flatMap { members[$0] }
    }

    /// Every workspace in list order.
    var allWorkspaces: [Workspace] { workspaces.values.sorted { $0.position < $1.position } }

    /// The workspaces the caller owns or belongs to, in list order.
    func workspaces(visibleTo caller: String) -> [Workspace] {
        (visibleTo[caller] ?? []).compactMap { workspaces[$0] }.sorted { $0.position < $1.position }
    }

    /// The workspace if the caller owns it or is a member; otherwise it does not exist for them.
    func visibleWorkspace(_ id: String, to caller: String) throws(CSE118Error) -> Workspace {
        guard let workspace = workspaces[id], workspace.isVisible(to: caller) else { throw .workspaceNotFound }
        return workspace
    }

    // An endpoint that changes a workspace must not hold a copy of it (or of a channel) meanwhile:
    // the change would then copy its channels (or messages) first. Hence owners and ids below.

    /// The channel and its workspace's owner, if the caller sees the workspace.
    func visibleChannel(_ id: String, to caller: String) throws(CSE118Error) -> (owner: String, channel: Channel) {
        guard let workspaceID = workspaceOfChannel[id], let workspace = workspaces[workspaceID],
              workspace.isVisible(to: caller), let channel = workspace.channels[id] else { throw .channelNotFound }
        return (workspace.owner, channel)
    }

    /// The message and its workspace's owner, if the caller sees the workspace.
    func visibleMessage(_ id: String, to caller: String) throws(CSE118Error) -> (owner: String, message: Message) {
        guard let channelID = channelOfMessage[id], let workspaceID = workspaceOfChannel[channelID],
              let workspace = workspaces[workspaceID], workspace.isVisible(to: caller),
              let message = workspace.channels[channelID]?.messages[id] else { throw .messageNotFound }
        return (workspace.owner, message)
    }

    func isMember(_ memberID: String, of workspaceID: String) -> Bool {
        workspaces[workspaceID]?.members.contains(memberID) == true
    }

    /// Ascending by lower-cased name, ties by id (docs/apis/cse118.md#endpoints).
    func sortedByName(_ ids: some Sequence<String>) -> [CSE118Shape.Member] {
        ids.compactMap { member($0) }.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
            .map { CSE118Shape.Member(id: $0.id, name: $0.name) }
    }

    // MARK: Changes

    /// A new token for the member; past `TokenLimit.perOwner`, their oldest stops working.
    mutating func setToken(_ token: String, member: String) {
        if let earlierOwner = tokens.updateValue(member, forKey: ExactText(token)), earlierOwner != member {
            tokensOfMember[earlierOwner]?.removeAll { $0.hasSameBytes(as: token) }
        }
        changes.touch(.row("tokens", "token", .string(token)))
        for ended in TokenLimit.append(token, to: &tokensOfMember[member, default: []]) {
            tokens[ExactText(ended)] = nil
            changes.touch(.row("tokens", "token", .string(ended)))
        }
    }

    /// A reset ends every token, those of a loaded state document included (docs/apis/cse118.md#reset).
    mutating func forgetTokens() {
        tokens = [:]
        tokensOfMember = [:]
    }

    /// A loaded state document, with the fixtures `PUT /reset` restores still the seed's.
    func keepingFixtures(of loaded: CSE118State) -> CSE118State {
        var kept = loaded
        kept.seededWorkspaces = seededWorkspaces
        kept.seededFixtures = seededFixtures
        return kept
    }

    /// A new workspace, listed after every other.
    mutating func createWorkspace(id: String, name: String, owner: String) -> Workspace {
        let workspace = Workspace(id: id, name: name, owner: owner, fixtureOf: nil, members: [], position: nextPosition)
        insert(workspace)
        changes.touch(Self.path(workspace: id))
        return workspace
    }

    /// Removes a workspace with its channels and messages.
    @discardableResult
    mutating func removeWorkspace(_ id: String) -> Workspace? {
        guard let workspace = workspaces.removeValue(forKey: id) else { return nil }
        for member in [workspace.owner] + workspace.members { visibleTo[member]?.removeAll { $0 == id } }
        for channel in workspace.channels.rows { unindex(channel) }
        changes.touch(Self.path(workspace: id))
        return workspace
    }

    mutating func addChannel(_ channel: Channel, to workspaceID: String) {
        workspaces[workspaceID]?.channels.append(channel)
        workspaceOfChannel[channel.id] = workspaceID
        changes.touch(Self.path(workspace: workspaceID, channel: channel.id))
    }

    @discardableResult
    mutating func removeChannel(_ id: String) -> Channel? {
        guard let workspaceID = workspaceOfChannel[id], let channel = workspaces[workspaceID]?.channels.remove(id) else { return nil }
        unindex(channel)
        changes.touch(Self.path(workspace: workspaceID, channel: id))
        return channel
    }

    mutating func addMessage(_ message: Message, to channelID: String) {
        guard let workspaceID = workspaceOfChannel[channelID] else { return }
        workspaces[workspaceID]?.channels.update(channelID) { $0.messages.append(message) }
        channelOfMessage[message.id] = channelID
        changes.touch(Self.path(workspace: workspaceID, channel: channelID, message: message.id))
    }

    @discardableResult
    mutating func removeMessage(_ id: String) -> Message? {
        guard let channelID = channelOfMessage.removeValue(forKey: id), let workspaceID = workspaceOfChannel[channelID] else { return nil }
        changes.touch(Self.path(workspace: workspaceID, channel: channelID, message: id))
        return workspaces[workspaceID]?.channels.update(channelID) { $0.messages.remove(id) } ?? nil
    }

    /// The workspace row is written again with its member list: O(workspace), a rare change.
    mutating func addMember(_ memberID: String, to workspaceID: String) {
        workspaces[workspaceID]?.members.append(memberID)
        visibleTo[memberID, default: []].append(workspaceID)
        changes.touch(Self.path(workspace: workspaceID))
    }

    /// Their messages stay in the workspace (docs/apis/cse118.md#endpoints).
    mutating func removeMember(_ memberID: String, from workspaceID: String) {
        workspaces[workspaceID]?.members.removeAll { $0 == memberID }
        visibleTo[memberID]?.removeAll { $0 == workspaceID }
        changes.touch(Self.path(workspace: workspaceID))
    }

    /// `PUT /reset` for one caller (docs/apis/cse118.md#reset): the workspaces they created go, their fixture
    /// workspaces come back exactly as seeded, at their seed positions. Nothing else changes.
    /// Written as the whole workspace list, since fixtures return to places in the middle of it.
    mutating func restoreFixtures(of caller: String) {
        let fixtures = (seededFixtures[caller] ?? []).map { seededWorkspaces[$0] }
        let created = (visibleTo[caller] ?? []).filter { workspaces[$0]?.owner == caller && workspaces[$0]?.fixtureOf == nil }
        for id in created + fixtures.map(\.id) { removeWorkspace(id) }
        for fixture in fixtures { insert(fixture) }
        changes.touchEverything(in: "workspaces")
    }

    /// Where a workspace, one of its channels, or a message in it sits in the seed document.
    private static func path(workspace: String, channel: String? = nil, message: String? = nil) -> RowPath {
        var path = RowPath.row("workspaces", "id", .string(workspace))
        if let channel { path = path.row("channels", "id", .string(channel)) }
        if let message { path = path.row("messages", "id", .string(message)) }
        return path
    }

    private mutating func insert(_ workspace: Workspace) {
        workspaces[workspace.id] = workspace
        nextPosition = max(nextPosition, workspace.position + 1)
        for member in [workspace.owner] + workspace.members { visibleTo[member, default: []].append(workspace.id) }
        for channel in workspace.channels.rows {
            workspaceOfChannel[channel.id] = workspace.id
            for message in channel.messages.rows { channelOfMessage[message.id] = channel.id }
        }
    }

    private mutating func unindex(_ channel: Channel) {
        workspaceOfChannel[channel.id] = nil
        for message in channel.messages.rows { channelOfMessage[message.id] = nil }
    }
}

extension CSE118State.Workspace {
    var shape: CSE118Shape.Workspace { .init(id: id, name: name, owner: owner, channels: channels.count) }
}

extension CSE118State.Channel {
    var shape: CSE118Shape.Channel { .init(id: id, name: name, messages: messages.count) }
}

extension CSE118State.Message {
    var shape: CSE118Shape.Message { .init(id: id, member: member, posted: posted, content: content) }
}

// MARK: Seed format

extension CSE118State {
    /// Reads and checks a seed or state document (`Seed/cse118.json`, docs/apis/cse118.md#accounts).
    init(seed document: JSONValue) throws(SeedError) {
        // Reading a seed is no change: nothing is recorded meanwhile.
        changes.isRecording = false
        defer { changes = StateChanges() }
        let root = try SeedNode(document).object()
        let memberNodes = try root.array("members"), workspaceNodes = try root.array("workspaces")
        // Sized up front, so the tables of a large seed are not rehashed as they fill.
        let channels = workspaceNodes.compactMap { $0.value.objectValue?["channels"]?.arrayValue }.joined()
        let messageCount = channels.reduce(0) { $0 + ($1.objectValue?["messages"]?.arrayValue?.count ?? 0) }
        var ids = Set<String>(minimumCapacity: memberNodes.count + workspaceNodes.count + channels.count + messageCount)
        members.reserveCapacity(memberNodes.count)
        memberIDByEmail.reserveCapacity(memberNodes.count)
        workspaces.reserveCapacity(workspaceNodes.count)
        workspaceOfChannel.reserveCapacity(channels.count)
        channelOfMessage.reserveCapacity(messageCount)
        func uniqueID(_ item: SeedObject) throws(SeedError) -> String {
            let node = try item.node("id")
            let id = try Self.uuid(node)
            guard ids.insert(id).inserted else { throw node.fail("duplicate id \(id)") }
            return id
        }
        func memberID(_ node: SeedNode) throws(SeedError) -> String {
            let id = try node.string()
            guard members[id] != nil else { throw node.fail("\(id) is not the id of a member") }
            return id
        }

        for node in memberNodes {
            let item = try node.object()
            let account = Member(id: try uniqueID(item), name: try item.text("name"), email: try item.text("email"),
                                 password: try item.text("password"))
            if member(email: account.email) != nil { throw node.fail("duplicate email \(account.email)") }
            members.append(account)
            memberIDByEmail[ExactText(account.email.lowercased())] = account.id
        }
        for (position, node) in workspaceNodes.enumerated() {
            let item = try node.object()
            var workspace = Workspace(id: try uniqueID(item), name: try item.text("name"),
                                      owner: try memberID(item.node("owner")),
                                      fixtureOf: try item.optionalNode("fixtureOf").map(memberID),
                                      members: [], position: position)
            var listed: Set<String> = []
            for memberNode in try item.array("members") {
                let id = try memberID(memberNode)
                if id == workspace.owner { throw memberNode.fail("the owner is not listed among the members") }
                if !listed.insert(id).inserted { throw memberNode.fail("duplicate member \(id)") }
                workspace.members.append(id)
            }
            for channelNode in try item.array("channels") {
                let channelItem = try channelNode.object()
                var channel = Channel(id: try uniqueID(channelItem), name: try channelItem.text("name"))
                for messageNode in try channelItem.array("messages") {
                    let messageItem = try messageNode.object()
                    let postedNode = try messageItem.node("posted")
                    let posted = try postedNode.string()
                    guard Self.isTimestamp(posted) else { throw postedNode.fail("expected YYYY-MM-DDTHH:MM:SS.mmmZ, got \(posted)") }
                    channel.messages.append(Message(id: try uniqueID(messageItem),
                                                    member: try memberID(messageItem.node("member")),
                                                    posted: posted, content: try messageItem.text("content")))
                }
                workspace.channels.append(channel)
            }
            if let student = workspace.fixtureOf { seededFixtures[student, default: []].append(seededWorkspaces.count) }
            seededWorkspaces.append(workspace)
            insert(workspace)
        }
        for node in try root.optionalNode("tokens")?.array() ?? [] {
            let item = try node.object()
            setToken(try item.text("token"), member: try memberID(item.node("member")))
        }
    }

    /// A lowercase UUID, as every id of the API is.
    private static func uuid(_ node: SeedNode) throws(SeedError) -> String {
        let text = try node.string()
        guard CSE118Input.isUUID(text), text == text.lowercased() else {
            throw node.fail("expected a lowercase UUID, got \(text)")
        }
        return text
    }

    /// `2023-05-01T12:18:48.000Z`, a real calendar time.
    static func isTimestamp(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[10] == UInt8(ascii: "T"), bytes[19] == UInt8(ascii: "."),
              bytes[23] == UInt8(ascii: "Z"), bytes[20..<23].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return false }
        return CivilTime(sqlText: String(decoding: bytes[0..<10] + [32] + bytes[11..<19], as: UTF8.self)) != nil
    }
}

extension CSE118State: LoggedState {
    public func seedRow(at path: RowPath) -> [UInt8]? {
        let steps = path.steps
        if steps.count == 1, steps[0].keyField == nil {
            return Self.encode(allWorkspaces.map(CSE118SeedFile.Workspace.init))
        }
        guard case let .string(key)? = steps[0].key else { return nil }
        if steps[0].member == "tokens" {
            return tokens[ExactText(key)].map { Self.encode(CSE118SeedFile.Token(token: key, member: $0)) }
        }
        guard let workspace = workspaces[key] else { return nil }
        guard steps.count > 1 else { return Self.encode(CSE118SeedFile.Workspace(workspace)) }
        guard case let .string(channelID)? = steps[1].key, let channel = workspace.channels[channelID] else { return nil }
        guard steps.count > 2 else { return Self.encode(CSE118SeedFile.Channel(channel)) }
        guard case let .string(messageID)? = steps[2].key, let message = channel.messages[messageID] else { return nil }
        return Self.encode(CSE118SeedFile.Message(message))
    }

    private static func encode(_ row: some Encodable) -> [UInt8] { OrderedJSON.encode(row, escapeSlash: false) }
}

/// The seed file's shape, written by `GET /_mock/state/cse118`.
struct CSE118SeedFile: Encodable {
    struct Member: Encodable {
        var id: String, name: String, email: String, password: String
    }
    struct Message: Encodable {
        var id: String, member: String, posted: String, content: String

        init(_ message: CSE118State.Message) {
            (id, member, posted, content) = (message.id, message.member, message.posted, message.content)
        }
    }
    struct Channel: Encodable {
        var id: String, name: String, messages: [Message]

        init(_ channel: CSE118State.Channel) {
            (id, name, messages) = (channel.id, channel.name, channel.messages.rows.map(Message.init))
        }
    }
    struct Workspace: Encodable {
        var id: String, name: String, owner: String
        /// Written as `null` for workspaces created at run time, so the key is always there.
        var fixtureOf: JSONValue
        var members: [String], channels: [Channel]

        init(_ workspace: CSE118State.Workspace) {
            (id, name, owner, members) = (workspace.id, workspace.name, workspace.owner, workspace.members)
            fixtureOf = workspace.fixtureOf.map(JSONValue.string) ?? .null
            channels = workspace.channels.rows.map(Channel.init)
        }
    }
    struct Token: Encodable {
        var token: String, member: String
    }

    var members: [Member]
    var workspaces: [Workspace]
    var tokens: [Token]

    init(_ state: CSE118State) {
        members = state.members.rows.map { Member(id: $0.id, name: $0.name, email: $0.email, password: $0.password) }
        workspaces = state.allWorkspaces.map(Workspace.init)
        tokens = state.tokens.sorted { $0.key.string.utf8.lexicographicallyPrecedes($1.key.string.utf8) }
            .map { Token(token: $0.key.string, member: $0.value) }
    }
}

// MARK: Tokens

/// Mints the opaque JWT-shaped tokens of docs/apis/cse118.md#endpoints: validated only by looking them up.
enum CSE118Token {
    /// `{"alg":"HS256","typ":"JWT"}`
    static let header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"

    static func mint(for member: CSE118State.Member, issuedAt: Int) -> String {
        var payload = JSONWriter(escapeSlash: false)
        payload.beginObject()
        payload.key("id")
        payload.string(member.id)
        payload.key("email")
        payload.string(member.email)
        payload.key("iat")
        payload.int(issuedAt)
        payload.endObject()
        return TokenParts.jwt(header: header, payload: payload.bytes)
    }
}
