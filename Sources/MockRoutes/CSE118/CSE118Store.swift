import Foundation
import MockHTTP
import MockKit

/// The cse118 API's data: members, workspaces, their channels and messages, and the live tokens,
/// each in a kit `Table` (docs/apis/cse118.md). The seed nests channels in workspaces and messages
/// in channels; here a channel names its workspace and a message its channel, and the tables find
/// a workspace's channels and a channel's messages by those names, so a request about one row
/// costs the same with 10 students or 100,000.
public struct CSE118State: StoredState {
    struct Member: TableRow {
        static let keyField = "id"
        var id: CSE118ID
        var name: String
        var email: String
        var password: String
        var key: CSE118ID { id }
    }

    struct Workspace: TableRow {
        static let keyField = "id"
        var id: CSE118ID
        var name: String
        var owner: CSE118ID
        /// The student whose private fixture copy this is; nil for workspaces created at run time.
        var fixtureOf: CSE118ID?
        /// Member ids, the owner not included.
        var members: [CSE118ID] = []
        /// Its place in every list: its place in the loaded document, or after all of those in
        /// creation order, so a restored fixture returns to its old place. Not in the seed.
        var position = 0
        var key: CSE118ID { id }

        func isVisible(to caller: CSE118ID) -> Bool { owner == caller || members.contains(caller) }
    }

    struct Channel: TableRow {
        static let keyField = "id"
        var id: CSE118ID
        var name: String
        /// The workspace it is in (in the seed, the one it is nested in).
        var workspace: CSE118ID
        var key: CSE118ID { id }
    }

    struct Message: TableRow {
        static let keyField = "id"
        var id: CSE118ID
        var member: CSE118ID
        var posted: CSE118Time
        var content: String
        /// The channel it is in (in the seed, the one it is nested in).
        var channel: CSE118ID
        var key: CSE118ID { id }
    }

    struct Token: TableRow {
        static let keyField = "token"
        var token: String
        var member: CSE118ID
        var key: ExactText { ExactText(token) }
    }

    /// A student's fixture workspace as seeded, which `PUT /reset` restores.
    struct Fixture {
        var workspace: Workspace
        var channels: [Channel] = []
        /// The messages of all its channels, each channel's in order.
        var messages: [Message] = []
    }

    /// Emails are unique whatever their letter case, and otherwise compared byte for byte.
    /// Members are neither added nor removed.
    var members = Table<Member>(indexes: [.unique(\.email, field: "email", folding: { $0.lowercasedIfNeeded() })])
    var workspaces = Table<Workspace>()
    var channels = Table<Channel>(indexes: [.grouped(\.workspace.uuid, field: "workspace")])
    var messages = Table<Message>(indexes: [.grouped(\.channel.uuid, field: "channel")])
    var tokens = Table<Token>()
    /// Member id → the ids of the workspaces they own or belong to, in no particular order.
    private var visible: [CSE118ID: [CSE118ID]] = [:]
    /// The tokens logins issued, which end oldest first past a limit (docs/apis/cse118.md#tokens).
    private var issuedTokens = IssuedTokens()
    /// Student id → their fixture workspaces as the seed had them, in seed order.
    var fixtures: [CSE118ID: [Fixture]] = [:]
    var nextPosition = 0

    public init() {}

    /// The rows the document implies: who sees which workspace, the next position (the fixtures
    /// are kept as the workspaces are read).
    public mutating func finishReading() throws(SeedError) {
        visible.reserveCapacity(members.count)
        for workspace in workspaces.rows {
            visible[workspace.owner, default: []].append(workspace.id)
            for member in workspace.members { visible[member, default: []].append(workspace.id) }
        }
        nextPosition = workspaces.count
    }

    // MARK: Reading

    func member(email: String) -> Member? { members.row(where: "email", is: email) }

    /// Every workspace in list order.
    var allWorkspaces: [Workspace] { workspaces.rows.sorted { $0.position < $1.position } }

    /// The workspaces the caller owns or belongs to, in list order.
    func workspaces(visibleTo caller: CSE118ID) -> [Workspace] {
        (visible[caller] ?? []).compactMap { workspaces[$0] }.sorted { $0.position < $1.position }
    }

    /// The workspace if the caller owns it or is a member; otherwise it does not exist for them.
    func visibleWorkspace(_ id: CSE118ID, to caller: CSE118ID) throws(CSE118Error) -> Workspace {
        guard let workspace = workspaces[id], workspace.isVisible(to: caller) else { throw .workspaceNotFound }
        return workspace
    }

    /// The channel and its workspace's owner, if the caller sees the workspace.
    func visibleChannel(_ id: CSE118ID, to caller: CSE118ID) throws(CSE118Error) -> (owner: CSE118ID, channel: Channel) {
        guard let channel = channels[id], let workspace = workspaces[channel.workspace], workspace.isVisible(to: caller) else {
            throw .channelNotFound
        }
        return (workspace.owner, channel)
    }

    /// The message and its workspace's owner, if the caller sees the workspace.
    func visibleMessage(_ id: CSE118ID, to caller: CSE118ID) throws(CSE118Error) -> (owner: CSE118ID, message: Message) {
        guard let message = messages[id], let channel = channels[message.channel], let workspace = workspaces[channel.workspace],
              workspace.isVisible(to: caller) else { throw .messageNotFound }
        return (workspace.owner, message)
    }

    /// A workspace's channels in the order they were created.
    func channels(of workspace: Workspace) -> [Channel] { channels.rows(where: "workspace", is: workspace.id.uuid) }

    /// A channel's messages in the order they were posted.
    func messages(of channel: Channel) -> [Message] { messages.rows(where: "channel", is: channel.id.uuid) }

    func channelCount(of workspace: Workspace) -> Int { channels.count(where: "workspace", is: workspace.id.uuid) }

    func messageCount(of channel: Channel) -> Int { messages.count(where: "channel", is: channel.id.uuid) }

    func isMember(_ memberID: CSE118ID, of workspaceID: CSE118ID) -> Bool {
        workspaces[workspaceID]?.members.contains(memberID) == true
    }

    /// Ascending by lower-cased name, ties by id (docs/apis/cse118.md#endpoints).
    func sortedByName(_ members: [Member]) -> [CSE118Shape.Member] {
        members.map { (key: $0.name.lowercased(), member: $0) }
            .sorted { ($0.key, $0.member.id) < ($1.key, $1.member.id) }
            .map { CSE118Shape.Member(id: $0.member.id.text, name: $0.member.name) }
    }

    // MARK: Changes

    /// A login's token; past `limit` issued ones, the oldest issued stops working. A token minted
    /// again (the same member in the same second) keeps its place.
    mutating func issueToken(_ token: String, member: CSE118ID, limit: Int) {
        guard tokens.insert(Token(token: token, member: member)) == nil else { return }
        if let ended = issuedTokens.record(token, limit: limit) { tokens.remove(ExactText(ended)) }
    }

    /// A reset ends every token, those of a loaded state document included (docs/apis/cse118.md#reset).
    mutating func forgetTokens() {
        tokens = Table()
        issuedTokens = IssuedTokens()
    }

    /// A loaded state document, with the fixtures `PUT /reset` restores still the seed's.
    func keepingFixtures(of loaded: CSE118State) -> CSE118State {
        var kept = loaded
        kept.fixtures = fixtures
        return kept
    }

    /// A new workspace, listed after every other.
    mutating func createWorkspace(id: CSE118ID, name: String, owner: CSE118ID) -> Workspace {
        let workspace = Workspace(id: id, name: name, owner: owner, position: nextPosition)
        insert(workspace)
        return workspace
    }

    /// Removes a workspace with its channels and messages; the texts they held, for the budget.
    @discardableResult
    mutating func removeWorkspace(_ id: CSE118ID) -> [String] {
        guard let workspace = workspaces.remove(id) else { return [] }
        for member in [workspace.owner] + workspace.members { visible[member]?.removeAll { $0 == id } }
        return channels(of: workspace).reduce([workspace.name]) { $0 + removeChannel($1.id) }
    }

    mutating func addChannel(id: CSE118ID, name: String, to workspaceID: CSE118ID) -> Channel {
        let channel = Channel(id: id, name: name, workspace: workspaceID)
        channels.insert(channel)
        return channel
    }

    /// Removes a channel and its messages, the last posted first; the texts they held.
    @discardableResult
    mutating func removeChannel(_ id: CSE118ID) -> [String] {
        guard let channel = channels[id] else { return [] }
        let gone = messages(of: channel)
        for message in gone.reversed() { messages.remove(message.id) }
        channels.remove(id)
        return [channel.name] + gone.map(\.content)
    }

    mutating func addMessage(_ message: Message) {
        messages.insert(message)
    }

    mutating func removeMessage(_ id: CSE118ID) {
        messages.remove(id)
    }

    mutating func addMember(_ memberID: CSE118ID, to workspaceID: CSE118ID) {
        workspaces.update(workspaceID) { $0.members.append(memberID) }
        visible[memberID, default: []].append(workspaceID)
    }

    /// Their messages stay in the workspace (docs/apis/cse118.md#endpoints).
    mutating func removeMember(_ memberID: CSE118ID, from workspaceID: CSE118ID) {
        workspaces.update(workspaceID) { $0.members.removeAll { $0 == memberID } }
        visible[memberID]?.removeAll { $0 == workspaceID }
    }

    /// `PUT /reset` for one caller (docs/apis/cse118.md#reset): the workspaces they created go, their fixture
    /// workspaces come back exactly as seeded, at their seed positions. Nothing else changes.
    /// Returns the texts of the workspaces they created, for the budget.
    mutating func restoreFixtures(of caller: CSE118ID) -> [String] {
        let created = workspaces(visibleTo: caller).filter { $0.owner == caller && $0.fixtureOf == nil }
        let texts = created.flatMap { removeWorkspace($0.id) }
        for fixture in fixtures[caller] ?? [] {
            removeWorkspace(fixture.workspace.id)
            insert(fixture.workspace)
            for channel in fixture.channels { channels.insert(channel) }
            for message in fixture.messages { messages.insert(message) }
        }
        return texts
    }

    private mutating func insert(_ workspace: Workspace) {
        workspaces.insert(workspace)
        nextPosition = max(nextPosition, workspace.position + 1)
        for member in [workspace.owner] + workspace.members { visible[member, default: []].append(workspace.id) }
    }
}

extension CSE118State.Workspace {
    func shape(channels: Int) -> CSE118Shape.Workspace { .init(id: id.text, name: name, owner: owner.text, channels: channels) }
}

extension CSE118State.Channel {
    func shape(messages: Int) -> CSE118Shape.Channel { .init(id: id.text, name: name, messages: messages) }
}

extension CSE118State.Message {
    var shape: CSE118Shape.Message { .init(id: id.text, member: member.text, posted: posted.text, content: content) }
}

// MARK: Reload

extension CSE118State: TokenCarrying {
    public var liveTokenOwners: [(token: String, user: String)] {
        tokens.rows.map { ($0.token, $0.member.text) }
    }

    /// The token counts as issued, so the bound on issued tokens still holds across reloads.
    public mutating func keepLiveToken(_ token: String, of user: String, from old: CSE118State) -> Bool {
        guard let id = CSE118ID(user), members.contains(id) else { return false }
        issueToken(token, member: id, limit: .max)
        return true
    }
}
