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
    /// The tokens logins issued, which end oldest first past a limit (docs/apis/cse118.md#tokens).
    private var issuedTokens = IssuedTokens()
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

    /// A login's token; past `limit` issued ones, the oldest issued stops working. A token minted
    /// again (the same member in the same second) keeps its place.
    mutating func issueToken(_ token: String, member: String, limit: Int) {
        guard tokens.updateValue(member, forKey: ExactText(token)) == nil else { return }
        changes.touch(.row("tokens", "token", .string(token)))
        if let ended = issuedTokens.record(token, limit: limit) {
            tokens[ExactText(ended)] = nil
            changes.touch(.row("tokens", "token", .string(ended)))
        }
    }

    /// A reset ends every token, those of a loaded state document included (docs/apis/cse118.md#reset).
    mutating func forgetTokens() {
        tokens = [:]
        issuedTokens = IssuedTokens()
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
        visibleTo[workspace.owner, default: []].append(workspace.id)
        for member in workspace.members { visibleTo[member, default: []].append(workspace.id) }
        // By id only: going through the rows would copy every channel and message.
        for channelID in workspace.channels.ids {
            workspaceOfChannel[channelID] = workspace.id
            for messageID in workspace.channels[channelID]!.messages.ids { channelOfMessage[messageID] = channelID }
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
    init(seed document: SeedJSON) throws(SeedError) {
        // Reading a seed is no change: nothing is recorded meanwhile.
        changes.isRecording = false
        defer { changes = StateChanges() }
        var ids = Set<String>()
        try document.read { root throws(SeedError) in
            /// The id of a new row, a lowercase UUID no other row has.
            func uniqueID(_ value: inout SeedReader) throws(SeedError) -> String {
                let id = try Self.uuid(&value)
                guard ids.insert(id).inserted else { throw value.fail("duplicate id \(id)") }
                return id
            }
            func memberID(_ value: inout SeedReader) throws(SeedError) -> String {
                let id = try value.string()
                guard members[id] != nil else { throw value.fail("\(id) is not the id of a member") }
                return id
            }
            try root.members(Keys.root) { key, value throws(SeedError) in
                switch key {
                case 0:
                    // Sized up front, so the tables of a large seed are not rehashed as they fill.
                    let count = try value.count()
                    members.reserveCapacity(count)
                    memberIDByEmail.reserveCapacity(count)
                    visibleTo.reserveCapacity(count)
                    ids.reserveCapacity(count)
                    try value.elements { item throws(SeedError) in
                        var account = Member(id: "", name: "", email: "", password: "")
                        try item.members(Keys.member) { key, value throws(SeedError) in
                            switch key {
                            case 0: account.id = try uniqueID(&value)
                            case 1: account.name = try value.text()
                            case 2: account.email = try value.text()
                            default: account.password = try value.text()
                            }
                        }
                        let email = ExactText(account.email.lowercased())
                        if memberIDByEmail.updateValue(account.id, forKey: email) != nil {
                            throw item.fail("duplicate email \(account.email)")
                        }
                        members.append(account)
                    }
                case 1:
                    var position = 0
                    // Most workspaces have a channel with messages: three more ids each at least.
                    let count = try value.count()
                    workspaces.reserveCapacity(count)
                    workspaceOfChannel.reserveCapacity(count)
                    channelOfMessage.reserveCapacity(count)
                    ids.reserveCapacity(ids.count + 3 * count)
                    try value.elements { item throws(SeedError) in
                        var workspace = Workspace(id: "", name: "", owner: "", fixtureOf: nil, members: [], position: position)
                        var listed: [(id: String, offset: Int)] = []
                        try item.members(Keys.workspace) { key, value throws(SeedError) in
                            switch key {
                            case 0: workspace.id = try uniqueID(&value)
                            case 1: workspace.name = try value.text()
                            case 2: workspace.owner = try memberID(&value)
                            case 3:
                                try value.elements { memberValue throws(SeedError) in
                                    listed.append((try memberID(&memberValue), memberValue.offset))
                                }
                            case 4:
                                try value.elements { channelValue throws(SeedError) in
                                    workspace.channels.append(try channel(&channelValue))
                                }
                            default: workspace.fixtureOf = try memberID(&value)
                            }
                        }
                        for (id, offset) in listed {
                            if id == workspace.owner { throw item.fail(at: offset, "the owner is not listed among the members") }
                            if workspace.members.contains(id) { throw item.fail(at: offset, "duplicate member \(id)") }
                            workspace.members.append(id)
                        }
                        if let student = workspace.fixtureOf { seededFixtures[student, default: []].append(seededWorkspaces.count) }
                        seededWorkspaces.append(workspace)
                        insert(workspace)
                        position += 1
                    }
                default:
                    try value.elements { item throws(SeedError) in
                        var token = "", member = ""
                        try item.members(Keys.token) { key, value throws(SeedError) in
                            if key == 0 { token = try value.text() } else { member = try memberID(&value) }
                        }
                        tokens[ExactText(token)] = member  // never ended by the limit on issued ones
                    }
                }
            }
            func channel(_ item: inout SeedReader) throws(SeedError) -> Channel {
                var channel = Channel(id: "", name: "")
                try item.members(Keys.channel) { key, value throws(SeedError) in
                    switch key {
                    case 0: channel.id = try uniqueID(&value)
                    case 1: channel.name = try value.text()
                    default:
                        try value.elements { messageValue throws(SeedError) in
                            var message = Message(id: "", member: "", posted: "", content: "")
                            try messageValue.members(Keys.message) { key, value throws(SeedError) in
                                switch key {
                                case 0: message.id = try uniqueID(&value)
                                case 1: message.member = try memberID(&value)
                                case 2:
                                    message.posted = try value.string()
                                    guard Self.isTimestamp(message.posted) else {
                                        throw value.fail("expected YYYY-MM-DDTHH:MM:SS.mmmZ, got \(message.posted)")
                                    }
                                default: message.content = try value.text()
                                }
                            }
                            channel.messages.append(message)
                        }
                    }
                }
                return channel
            }
        }
    }

    private enum Keys {
        static let root = SeedKeys(["members", "workspaces"], optional: ["tokens"])
        static let member = SeedKeys(["id", "name", "email", "password"])
        static let workspace = SeedKeys(["id", "name", "owner", "members", "channels"], optional: ["fixtureOf"])
        static let channel = SeedKeys(["id", "name", "messages"])
        static let message = SeedKeys(["id", "member", "posted", "content"])
        static let token = SeedKeys(["token", "member"])
    }

    /// A lowercase UUID, as every id of the API is.
    private static func uuid(_ node: inout SeedReader) throws(SeedError) -> String {
        let text = try node.string()
        guard CSE118Input.isUUID(text), !text.utf8.contains(where: { (65...90).contains($0) }) else {
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
