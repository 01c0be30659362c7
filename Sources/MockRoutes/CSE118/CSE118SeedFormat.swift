import Foundation
import MockHTTP
import MockKit
import MockSupport

// MARK: Seed format, written

extension CSE118State: TouchedState {
    public func seedRow(at path: RowPath) -> [UInt8]? {
        let steps = path.steps
        if steps.count == 1, steps[0].keyField == nil {
            return Self.encode(allWorkspaces.map { CSE118SeedFile.Workspace($0, in: self) })
        }
        guard case let .string(key)? = steps[0].key else { return nil }
        if steps[0].member == "tokens" {
            return tokens[ExactText(key)].map { Self.encode(CSE118SeedFile.Token(token: key, member: $0.text)) }
        }
        guard let id = CSE118ID(key), let workspace = slot(of: id, .workspace) else { return nil }
        guard steps.count > 1 else { return Self.encode(CSE118SeedFile.Workspace(workspaces[workspace], in: self)) }
        guard case let .string(channelKey)? = steps[1].key, let channelID = CSE118ID(channelKey),
              let channel = slot(of: channelID, .channel), channels[channel].workspace == workspace else { return nil }
        guard steps.count > 2 else { return Self.encode(CSE118SeedFile.Channel(channels[channel], in: self)) }
        guard case let .string(messageKey)? = steps[2].key, let messageID = CSE118ID(messageKey),
              let message = slot(of: messageID, .message), messages[message].channel == channel else { return nil }
        return Self.encode(CSE118SeedFile.Message(messages[message]))
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
            (id, member, posted, content) = (message.id.text, message.member.text, message.posted.text, message.content)
        }
    }
    struct Channel: Encodable {
        var id: String, name: String, messages: [Message]

        init(_ channel: CSE118State.Channel, in state: CSE118State) {
            (id, name, messages) = (channel.id.text, channel.name, state.messages(of: channel).map(Message.init))
        }
    }
    struct Workspace: Encodable {
        var id: String, name: String, owner: String
        /// Written as `null` for workspaces created at run time, so the key is always there.
        var fixtureOf: JSONValue
        var members: [String], channels: [Channel]

        init(_ workspace: CSE118State.Workspace, in state: CSE118State) {
            (id, name, owner, members) = (workspace.id.text, workspace.name, workspace.owner.text, workspace.members.map(\.text))
            fixtureOf = workspace.fixtureOf.map { .string($0.text) } ?? .null
            channels = state.channels(of: workspace).map { Channel($0, in: state) }
        }
    }
    struct Token: Encodable {
        var token: String, member: String
    }

    var members: [Member]
    var workspaces: [Workspace]
    var tokens: [Token]

    init(_ state: CSE118State) {
        members = state.members.map { Member(id: $0.id.text, name: $0.name, email: state.email(of: $0), password: $0.password) }
        workspaces = state.allWorkspaces.map { Workspace($0, in: state) }
        tokens = state.tokens.sorted { $0.key.string.utf8.lexicographicallyPrecedes($1.key.string.utf8) }
            .map { Token(token: $0.key.string, member: $0.value.text) }
    }
}

// MARK: Tokens

/// Mints the opaque JWT-shaped tokens of docs/apis/cse118.md#endpoints: validated only by looking them up.
enum CSE118Token {
    /// `{"alg":"HS256","typ":"JWT"}`
    static let header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"

    static func mint(for member: CSE118State.Member, email: String, issuedAt: Int, random: RandomStream) -> String {
        var payload = JSONWriter(escapeSlash: false)
        payload.beginObject()
        payload.key("id")
        payload.string(member.id.text)
        payload.key("email")
        payload.string(email)
        payload.key("iat")
        payload.int(issuedAt)
        payload.endObject()
        return TokenParts.jwt(header: header, payload: payload.bytes, random: random)
    }
}
