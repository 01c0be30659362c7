import Foundation
import MockHTTP
import MockKit
import MockSupport

// MARK: Seed format

/// `Seed/cse118.json` (docs/apis/cse118.md#accounts): `members`, then `workspaces` with their
/// `channels` nested in them and the channels' `messages` in those, then the live `tokens`. The
/// seed file, `GET`/`PUT /_mock/state/cse118` and the `--state` file all read and write it here.
extension CSE118State {
    public static let format = SeedFormat<CSE118State>(
        .table("members", \.members, duplicates: .keyAtField),
        .custom("workspaces", read: { state, list throws(SeedError) in try state.readWorkspaces(&list) },
                write: { state, writer in writer.objects(state.allWorkspaces) { state.write($1, to: &$0) } },
                setRecording: { state, on in
                    state.workspaces.record(on)
                    state.channels.record(on)
                    state.messages.record(on)
                },
                takeChanges: { state in state.takeWorkspaceChanges() },
                row: { state, path in state.seedRow(under: path) },
                rowCount: { $0.workspaces.count }),
        .table("tokens", \.tokens, optional: true, order: { $0.token.utf8.lexicographicallyPrecedes($1.token.utf8) },
               check: { token, state in state.members.contains(token.member) ? nil : .field("member", notAMember(token.member.text)) }))


    /// Each workspace, then its channels, then their messages, each checked against the rows
    /// read before it; a row's id is unique among the rows of its kind.
    private mutating func readWorkspaces(_ list: inout SeedReader) throws(SeedError) {
        // Sized up front (the list was counted when the document was checked); the nested channels
        // and messages are not counted: one of each per workspace is the guess, and they grow past it.
        let count = try list.count()
        workspaces.reserveCapacity(workspaces.count + count)
        channels.reserveCapacity(channels.count + count)
        messages.reserveCapacity(messages.count + count)
        fixtures.reserveCapacity(min(members.count, count))
        try list.objects { fields throws(SeedError) in
            var workspace = try Workspace(seed: fields)
            guard !workspaces.contains(workspace.id) else { throw fields.fail("id", "duplicate id \(workspace.id.text)") }
            guard members.contains(workspace.owner) else { throw fields.fail("owner", notAMember(workspace.owner.text)) }
            if let student = workspace.fixtureOf, !members.contains(student) {
                throw fields.fail("fixtureOf", notAMember(student.text))
            }
            // Read here rather than by a method of the state: calling one from this closure copied
            // the whole state for each workspace.
            workspace.members = try fields.value("members") { list throws(SeedError) in
                var listed: [CSE118ID] = []
                try list.elements { element throws(SeedError) in
                    let id = try CSE118ID.read(&element, problem: notAMember)
                    guard members.contains(id) else { throw element.fail(notAMember(id.text)) }
                    guard id != workspace.owner else { throw element.fail("the owner is not listed among the members") }
                    guard !listed.contains(id) else { throw element.fail("duplicate member \(id.text)") }
                    listed.append(id)
                }
                return listed
            }
            workspace.position = workspaces.count
            workspaces.insert(workspace)
            var fixture = workspace.fixtureOf.map { _ in Fixture(workspace: workspace) }
            try fields.value("channels") { list throws(SeedError) in
                try list.objects { fields throws(SeedError) in try readChannel(fields, in: workspace.id, fixture: &fixture) }
            }
            if let student = workspace.fixtureOf, let fixture { fixtures[student, default: []].append(fixture) }
        }
    }

    /// A channel and its messages, kept in `fixture` too when the workspace is one.
    private mutating func readChannel(_ fields: SeedFields, in workspace: CSE118ID, fixture: inout Fixture?) throws(SeedError) {
        var channel = try Channel(seed: fields)
        channel.workspace = workspace
        guard channels.insert(channel) == nil else { throw fields.fail("id", "duplicate id \(channel.id.text)") }
        fixture?.channels.append(channel)
        try fields.value("messages") { list throws(SeedError) in
            try list.objects { fields throws(SeedError) in
                var message = try Message(seed: fields)
                message.channel = channel.id
                // Inserted before its member is checked: a refused message refuses the whole document.
                guard messages.insert(message) == nil else { throw fields.fail("id", "duplicate id \(message.id.text)") }
                guard members.contains(message.member) else { throw fields.fail("member", notAMember(message.member.text)) }
                fixture?.messages.append(message)
            }
        }
    }

    private func write(_ workspace: Workspace, to writer: inout SeedFieldWriter) {
        workspace.write(to: &writer)
        writer.field("channels", objects: channels(of: workspace)) { write($1, to: &$0) }
    }

    private func write(_ channel: Channel, to writer: inout SeedFieldWriter) {
        channel.write(to: &writer)
        writer.field("messages", objects: messages(of: channel)) { $1.write(to: &$0) }
    }

    // MARK: Changes for the state log

    /// The rows the three tables noted, each at its path in the nested document: a message's
    /// names its channel and workspace. A row whose parent is written whole is left out. A
    /// fixture back at its place before others (`PUT /reset`) writes the whole list, since a
    /// record's new row goes last.
    private mutating func takeWorkspaceChanges() -> [RowPath] {
        let workspaceChanges = workspaces.takeChangedRows()
        let channelChanges = channels.takeChangedRows(), messageChanges = messages.takeChangedRows()
        if workspaceChanges.contains(where: { $0.isNew && ($0.row?.position ?? .max) < nextPosition - 1 }) {
            return [.member("workspaces")]
        }
        let writtenWorkspaces = Set(workspaceChanges.map(\.key))
        var paths = workspaceChanges.map { Self.path(workspace: $0.key) }
        var channelsChanged: [CSE118ID: Channel] = [:]
        for change in channelChanges {
            guard let channel = change.row ?? change.removed else { continue }
            channelsChanged[channel.id] = channel
            if !writtenWorkspaces.contains(channel.workspace) { paths.append(Self.path(workspace: channel.workspace, channel: channel.id)) }
        }
        for change in messageChanges {
            guard let message = change.row ?? change.removed, channelsChanged[message.channel] == nil,
                  let channel = channels[message.channel], !writtenWorkspaces.contains(channel.workspace) else { continue }
            paths.append(Self.path(workspace: channel.workspace, channel: channel.id, message: message.id))
        }
        return paths
    }

    private static func path(workspace: CSE118ID, channel: CSE118ID? = nil, message: CSE118ID? = nil) -> RowPath {
        var path = RowPath.row("workspaces", "id", workspace.rowKey)
        if let channel { path = path.row("channels", "id", channel.rowKey) }
        if let message { path = path.row("messages", "id", message.rowKey) }
        return path
    }

    /// The workspace, channel or message at `path`, or every workspace for a path without a key.
    private func seedRow(under path: RowPath) -> [UInt8]? {
        let keys = path.steps.map { $0.key.flatMap(CSE118ID.init(rowKey:)) }
        guard let workspaceID = keys[0] else {
            return path.steps.count == 1 ? SeedFieldWriter.objects(allWorkspaces) { write($1, to: &$0) } : nil
        }
        guard let workspace = workspaces[workspaceID] else { return nil }
        guard keys.count > 1 else { return SeedFieldWriter.object { write(workspace, to: &$0) } }
        guard let channelID = keys[1], let channel = channels[channelID], channel.workspace == workspaceID else { return nil }
        guard keys.count > 2 else { return SeedFieldWriter.object { write(channel, to: &$0) } }
        guard let messageID = keys[2], let message = messages[messageID], message.channel == channelID else { return nil }
        return message.seedJSON
    }
}

// MARK: Rows

private func notAMember(_ text: String) -> String { "\(text) is not the id of a member" }

/// A member's id read from a seed, checked against the members by the state once the row is read.
private func reference(_ value: inout SeedReader) throws(SeedError) -> CSE118ID {
    try CSE118ID.read(&value, problem: notAMember)
}

extension CSE118State.Member {
    init(seed row: SeedFields) throws(SeedError) {
        id = try row.value("id", CSE118ID.read)
        (name, email, password) = (try row.text("name"), try row.text("email"), try row.text("password"))
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("id", id.text)
        seed.field("name", name)
        seed.field("email", email)
        seed.field("password", password)
    }
}

extension CSE118State.Workspace {
    /// The workspace's own fields; its `members` and `channels` are read by the state, which
    /// checks them against the rows read before.
    init(seed row: SeedFields) throws(SeedError) {
        id = try row.value("id", CSE118ID.read)
        name = try row.text("name")
        owner = try row.value("owner", reference)
        fixtureOf = try row.optional("fixtureOf", reference)
    }

    /// `fixtureOf` is written as `null` for workspaces created at run time, so the key is always there.
    func write(to seed: inout SeedFieldWriter) {
        seed.field("id", id.text)
        seed.field("name", name)
        seed.field("owner", owner.text)
        seed.field("fixtureOf", fixtureOf?.text)
        seed.field("members", members.map(\.text))
    }
}

extension CSE118State.Channel {
    /// Its `workspace` is the one the state reads it in; its `messages` the state reads.
    init(seed row: SeedFields) throws(SeedError) {
        id = try row.value("id", CSE118ID.read)
        name = try row.text("name")
        workspace = id
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("id", id.text)
        seed.field("name", name)
    }
}

extension CSE118State.Message {
    /// Its `channel` is the one the state reads it in.
    init(seed row: SeedFields) throws(SeedError) {
        id = try row.value("id", CSE118ID.read)
        member = try row.value("member", reference)
        posted = try row.value("posted") { value throws(SeedError) in
            let text = try value.string()
            guard let time = CSE118Time(text) else { throw value.fail("expected YYYY-MM-DDTHH:MM:SS.mmmZ, got \(text)") }
            return time
        }
        content = try row.text("content")
        channel = id
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("id", id.text)
        seed.field("member", member.text)
        seed.field("posted", posted.text)
        seed.field("content", content)
    }
}

extension CSE118State.Token {
    init(seed row: SeedFields) throws(SeedError) {
        token = try row.text("token")
        member = try row.value("member", reference)
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("token", token)
        seed.field("member", member.text)
    }
}

// MARK: Tokens

/// Mints the opaque JWT-shaped tokens of docs/apis/cse118.md#endpoints: validated only by looking them up.
enum CSE118Token {
    /// `{"alg":"HS256","typ":"JWT"}`
    static let header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"

    static func mint(for member: CSE118State.Member, issuedAt: Int, random: RandomStream) -> String {
        var payload = JSONWriter(escapeSlash: false)
        payload.beginObject()
        payload.key("id")
        payload.string(member.id.text)
        payload.key("email")
        payload.string(member.email)
        payload.key("iat")
        payload.int(issuedAt)
        payload.endObject()
        return TokenParts.jwt(header: header, payload: payload.bytes, random: random)
    }
}
