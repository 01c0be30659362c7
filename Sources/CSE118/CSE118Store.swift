import Foundation
import MockHTTP
import MockKit

/// The cse118 API's data: accounts, workspaces (each holding its channels and their messages)
/// and the live tokens. Workspaces, channels and messages are kept in creation order.
public struct CSE118State {
    struct Member {
        var id: String
        var name: String
        var email: String
        var password: String
    }

    struct Message {
        var id: String
        var member: String
        /// ISO-8601 with milliseconds; fixed width, so text order is time order.
        var posted: String
        var content: String
    }

    struct Channel {
        var id: String
        var name: String
        var messages: [Message]
    }

    struct Workspace {
        var id: String
        var name: String
        var owner: String
        /// The student whose private fixture copy this is; nil for workspaces created at run time.
        var fixtureOf: String?
        /// Member ids, the owner not included.
        var members: [String]
        var channels: [Channel]

        func isVisible(to caller: String) -> Bool { owner == caller || members.contains(caller) }
    }

    var members: [Member] = []
    var workspaces: [Workspace] = []
    /// Token → member id.
    var tokens: [String: String] = [:]
    /// The workspaces of the document this state was loaded from, which `PUT /reset` restores.
    private(set) var seededWorkspaces: [Workspace] = []

    func member(_ id: String) -> Member? { members.first { $0.id == id } }

    func member(email: String) -> Member? {
        let wanted = email.lowercased()
        return members.first { $0.email.lowercased() == wanted }
    }

    func workspaceIndex(_ id: String) -> Int? { workspaces.firstIndex { $0.id == id } }

    func channelIndex(_ id: String) -> (workspace: Int, channel: Int)? {
        for (w, workspace) in workspaces.enumerated() {
            if let c = workspace.channels.firstIndex(where: { $0.id == id }) { return (w, c) }
        }
        return nil
    }

    func messageIndex(_ id: String) -> (workspace: Int, channel: Int, message: Int)? {
        for (w, workspace) in workspaces.enumerated() {
            for (c, channel) in workspace.channels.enumerated() {
                if let m = channel.messages.firstIndex(where: { $0.id == id }) { return (w, c, m) }
            }
        }
        return nil
    }

    /// The workspace if the caller owns it or is a member; otherwise it does not exist for them.
    func visibleWorkspace(_ id: String, to caller: String) throws(CSE118Error) -> Int {
        guard let index = workspaceIndex(id), workspaces[index].isVisible(to: caller) else { throw .workspaceNotFound }
        return index
    }

    func visibleChannel(_ id: String, to caller: String) throws(CSE118Error) -> (workspace: Int, channel: Int) {
        guard let found = channelIndex(id), workspaces[found.workspace].isVisible(to: caller) else { throw .channelNotFound }
        return found
    }

    func visibleMessage(_ id: String, to caller: String) throws(CSE118Error) -> (workspace: Int, channel: Int, message: Int) {
        guard let found = messageIndex(id), workspaces[found.workspace].isVisible(to: caller) else { throw .messageNotFound }
        return found
    }

    /// Ascending by lower-cased name, ties by id (contract §4).
    func sortedByName(_ ids: [String]) -> [CSE118Shape.Member] {
        ids.compactMap { member($0) }.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
            .map { CSE118Shape.Member(id: $0.id, name: $0.name) }
    }

    /// `PUT /reset` for one caller (contract §7): the workspaces they created go, their fixture
    /// workspaces come back exactly as seeded, at their seed positions. Nothing else changes.
    mutating func restoreFixtures(of caller: String) {
        workspaces.removeAll { ($0.owner == caller && $0.fixtureOf == nil) || $0.fixtureOf == caller }
        workspaces += seededWorkspaces.filter { $0.fixtureOf == caller }
        var seedPosition: [String: Int] = [:]
        for (index, workspace) in seededWorkspaces.enumerated() { seedPosition[workspace.id] = index }
        // Seeded workspaces in seed order, then the ones created later in their own order.
        workspaces = workspaces.enumerated()
            .sorted { (seedPosition[$0.element.id] ?? Int.max, $0.offset) < (seedPosition[$1.element.id] ?? Int.max, $1.offset) }
            .map(\.element)
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
    /// Reads and checks a seed or state document (`Seed/cse118.json`, contract §8).
    init(seed document: JSONValue) throws(SeedError) {
        let root = try SeedNode(document).object()
        var ids = Set<String>()
        func uniqueID(_ item: SeedObject) throws(SeedError) -> String {
            let node = try item.node("id")
            let id = try Self.uuid(node)
            guard ids.insert(id).inserted else { throw node.fail("duplicate id \(id)") }
            return id
        }
        func memberID(_ node: SeedNode) throws(SeedError) -> String {
            let id = try node.string()
            guard member(id) != nil else { throw node.fail("\(id) is not the id of a member") }
            return id
        }

        for node in try root.array("members") {
            let item = try node.object()
            let account = Member(id: try uniqueID(item), name: try item.text("name"), email: try item.text("email"),
                                 password: try item.text("password"))
            if member(email: account.email) != nil { throw node.fail("duplicate email \(account.email)") }
            members.append(account)
        }
        for node in try root.array("workspaces") {
            let item = try node.object()
            var workspace = Workspace(id: try uniqueID(item), name: try item.text("name"),
                                      owner: try memberID(item.node("owner")),
                                      fixtureOf: try item.optionalNode("fixtureOf").map(memberID),
                                      members: [], channels: [])
            for memberNode in try item.array("members") {
                let id = try memberID(memberNode)
                if id == workspace.owner { throw memberNode.fail("the owner is not listed among the members") }
                if workspace.members.contains(id) { throw memberNode.fail("duplicate member \(id)") }
                workspace.members.append(id)
            }
            for channelNode in try item.array("channels") {
                let channelItem = try channelNode.object()
                var channel = Channel(id: try uniqueID(channelItem), name: try channelItem.text("name"), messages: [])
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
            workspaces.append(workspace)
        }
        for node in try root.optionalNode("tokens")?.array() ?? [] {
            let item = try node.object()
            tokens[try item.text("token")] = try memberID(item.node("member"))
        }
        seededWorkspaces = workspaces
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

/// The seed file's shape, written by `GET /_mock/state/cse118`.
struct CSE118SeedFile: Encodable {
    struct Member: Encodable {
        var id: String, name: String, email: String, password: String
    }
    struct Message: Encodable {
        var id: String, member: String, posted: String, content: String
    }
    struct Channel: Encodable {
        var id: String, name: String, messages: [Message]
    }
    struct Workspace: Encodable {
        var id: String, name: String, owner: String
        /// Written as `null` for workspaces created at run time, so the key is always there.
        var fixtureOf: JSONValue
        var members: [String], channels: [Channel]
    }
    struct Token: Encodable {
        var token: String, member: String
    }

    var members: [Member]
    var workspaces: [Workspace]
    var tokens: [Token]

    init(_ state: CSE118State) {
        members = state.members.map { Member(id: $0.id, name: $0.name, email: $0.email, password: $0.password) }
        workspaces = state.workspaces.map { workspace in
            Workspace(id: workspace.id, name: workspace.name, owner: workspace.owner,
                      fixtureOf: workspace.fixtureOf.map(JSONValue.string) ?? .null, members: workspace.members,
                      channels: workspace.channels.map { channel in
                          Channel(id: channel.id, name: channel.name, messages: channel.messages.map {
                              Message(id: $0.id, member: $0.member, posted: $0.posted, content: $0.content)
                          })
                      })
        }
        tokens = state.tokens.sorted { $0.key < $1.key }.map { Token(token: $0.key, member: $0.value) }
    }
}

// MARK: Tokens

/// Mints the opaque JWT-shaped tokens of contract §2: validated only by looking them up.
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
