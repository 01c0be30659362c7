import Foundation
import MockHTTP
import MockKit

/// The cse118 API's data: accounts, workspaces, their channels and messages, and the live tokens.
///
/// Workspaces, channels and messages sit in flat tables by slot; one index maps every id, whatever
/// its kind, to its table and slot, so members, workspaces, channels and messages are found by id in
/// O(1), and a seed's ids are checked unique with one lookup each. A workspace lists its channels'
/// slots, a channel its messages', and each member the workspaces they see, so a request about one
/// row costs the same with 10 students or 100,000. Rows change only through the methods below,
/// which keep the index and the lists in step.
public struct CSE118State {
    struct Member {
        var id = CSE118ID()
        var name = ""
        /// Where the UTF-8 of their email sits in `emails` (`email(of:)`): an email is rarely short
        /// enough for a String to hold it without an allocation of its own.
        var emailBytes: Range<Int32> = 0..<0
        var password = ""
        /// The slots of the workspaces they own or belong to, in no particular order.
        var workspaces = SlotList()
    }

    struct Message {
        var id = CSE118ID()
        var member = CSE118ID()
        var posted = CSE118Timestamp()
        var content = ""
        /// Its channel's slot.
        var channel: Int32
    }

    struct Channel {
        var id = CSE118ID()
        var name = ""
        /// Its workspace's slot.
        var workspace: Int32
        /// The slots of its messages, in the order they were posted.
        var messages = SlotList()
    }

    struct Workspace {
        var id = CSE118ID()
        var name = ""
        var owner = CSE118ID()
        /// The student whose private fixture copy this is; nil for workspaces created at run time.
        var fixtureOf: CSE118ID?
        /// Member ids, the owner not included.
        var members: [CSE118ID] = []
        /// The slots of its channels, in the order they were created.
        var channels = SlotList()
        /// Its place in every list: its position in the loaded document, or after all of those in
        /// creation order, so a restored fixture returns to its old place.
        var position: Int

        func isVisible(to caller: CSE118ID) -> Bool { owner == caller || members.contains(caller) }
    }

    /// The table a row with some id is in, and its slot there.
    struct Place {
        enum Kind: UInt32 {
            case member, workspace, channel, message
        }

        /// The kind in the top two bits, the slot below.
        private let bits: UInt32

        init(_ kind: Kind, _ slot: Int32) { bits = kind.rawValue << 30 | UInt32(slot) }
        /// The place as a row of a `TaggedRowIndex`.
        init(row: Int) { bits = UInt32(row) }
        var row: Int { Int(bits) }

        var kind: Kind { Kind(rawValue: bits >> 30)! }
        var slot: Int32 { Int32(bits & 0x3FFF_FFFF) }
    }

    /// The seed's workspaces, channels and messages, from which `PUT /reset` restores each
    /// student's fixture workspaces. They share the loaded tables' storage until those change.
    struct Fixtures {
        var workspaces = Slots<Workspace>()
        var channels = Slots<Channel>()
        var messages = Slots<Message>()
        /// Student id → the slots of their fixture workspaces, in seed order.
        var ofStudent: [CSE118ID: [Int32]] = [:]
    }

    /// In the loaded document's order; members are neither added nor removed.
    private(set) var members: [Member] = []
    /// Every member's email, one after the other, in the members' order.
    private var emails: [UInt8] = []
    /// Emails are unique whatever their letter case, and otherwise compared byte for byte.
    private var memberSlotByEmail = CSE118EmailIndex()
    private(set) var workspaces = Slots<Workspace>()
    private(set) var channels = Slots<Channel>()
    private(set) var messages = Slots<Message>()
    /// Every row's id.
    private var index = CSE118IDIndex()
    /// Token → member id.
    private(set) var tokens: [ExactText: CSE118ID] = [:]
    /// The tokens logins issued, which end oldest first past a limit (docs/apis/cse118.md#tokens).
    private var issuedTokens = IssuedTokens()
    private var seeded = Fixtures()
    private var nextPosition = 0
    public var changes = StateChanges()

    /// The slot of the row of this kind with this id.
    func slot(of id: CSE118ID, _ kind: Place.Kind) -> Int32? {
        guard let place = index.find(id, idAt: id(at:)), place.kind == kind else { return nil }
        return place.slot
    }

    /// The id of the row at a place that holds one.
    private func id(at place: Place) -> CSE118ID {
        switch place.kind {
        case .member: return members[Int(place.slot)].id
        case .workspace: return workspaces[place.slot].id
        case .channel: return channels[place.slot].id
        case .message: return messages[place.slot].id
        }
    }

    func member(_ id: CSE118ID) -> Member? { slot(of: id, .member).map { members[Int($0)] } }

    func member(email: String) -> Member? {
        var email = email
        return email.withUTF8 { memberSlotByEmail.find(UnsafeRawBufferPointer($0), emailOf: withEmail) }.map { members[Int($0)] }
    }

    func email(of member: Member) -> String {
        String(decoding: emails[Int(member.emailBytes.lowerBound)..<Int(member.emailBytes.upperBound)], as: UTF8.self)
    }

    /// Calls `body` with the UTF-8 of the email of the member in `slot`.
    private func withEmail<Result>(of slot: Int32, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        Self.withEmail(of: slot, in: members, emails, body)
    }

    /// The same, from the two tables alone: while the seed is read, a call on the whole state
    /// would copy it (reference counting every table) at each member.
    private static func withEmail<Result>(of slot: Int32, in members: [Member], _ emails: [UInt8],
                                          _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let bytes = members[Int(slot)].emailBytes
        return emails.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[Int(bytes.lowerBound)..<Int(bytes.upperBound)])) }
    }

    /// Every workspace in list order.
    var allWorkspaces: [Workspace] { workspaces.rows.sorted { $0.position < $1.position } }

    /// The workspaces the caller owns or belongs to, in list order.
    func workspaces(visibleTo caller: CSE118ID) -> [Workspace] {
        guard let member = member(caller) else { return [] }
        return member.workspaces.map { workspaces[$0] }.sorted { $0.position < $1.position }
    }

    /// The workspace if the caller owns it or is a member; otherwise it does not exist for them.
    func visibleWorkspace(_ id: CSE118ID, to caller: CSE118ID) throws(CSE118Error) -> Workspace {
        guard let slot = slot(of: id, .workspace), workspaces[slot].isVisible(to: caller) else { throw .workspaceNotFound }
        return workspaces[slot]
    }

    /// The channel and its workspace's owner, if the caller sees the workspace.
    func visibleChannel(_ id: CSE118ID, to caller: CSE118ID) throws(CSE118Error) -> (owner: CSE118ID, channel: Channel) {
        guard let slot = slot(of: id, .channel) else { throw .channelNotFound }
        let channel = channels[slot], workspace = workspaces[channel.workspace]
        guard workspace.isVisible(to: caller) else { throw .channelNotFound }
        return (workspace.owner, channel)
    }

    /// The message and its workspace's owner, if the caller sees the workspace.
    func visibleMessage(_ id: CSE118ID, to caller: CSE118ID) throws(CSE118Error) -> (owner: CSE118ID, message: Message) {
        guard let slot = slot(of: id, .message) else { throw .messageNotFound }
        let message = messages[slot], workspace = workspaces[channels[message.channel].workspace]
        guard workspace.isVisible(to: caller) else { throw .messageNotFound }
        return (workspace.owner, message)
    }

    /// A workspace's channels in the order they were created.
    func channels(of workspace: Workspace) -> [Channel] { workspace.channels.map { channels[$0] } }

    /// A channel's messages in the order they were posted.
    func messages(of channel: Channel) -> [Message] { channel.messages.map { messages[$0] } }

    func isMember(_ memberID: CSE118ID, of workspaceID: CSE118ID) -> Bool {
        slot(of: workspaceID, .workspace).map { workspaces[$0].members.contains(memberID) } == true
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
        kept.seeded = seeded
        return kept
    }

    /// A new workspace, listed after every other.
    mutating func createWorkspace(id: CSE118ID, name: String, owner: CSE118ID) -> Workspace {
        let workspace = Workspace(id: id, name: name, owner: owner, position: nextPosition)
        insert(workspace)
        changes.touch(Self.path(workspace: id))
        return workspace
    }

    /// Removes a workspace with its channels and messages.
    @discardableResult
    mutating func removeWorkspace(_ id: CSE118ID) -> Workspace? {
        guard let slot = slot(of: id, .workspace), let workspace = workspaces.remove(slot) else { return nil }
        index.remove(id, at: Place(.workspace, slot))
        for member in [workspace.owner] + workspace.members { changeMember(member) { $0.workspaces.remove(slot) } }
        for channel in workspace.channels { removeRows(ofChannel: channel) }
        changes.touch(Self.path(workspace: id))
        return workspace
    }

    mutating func addChannel(id: CSE118ID, name: String, to workspaceID: CSE118ID) -> Channel? {
        guard let workspace = slot(of: workspaceID, .workspace) else { return nil }
        let channel = Channel(id: id, name: name, workspace: workspace)
        insert(channel)
        changes.touch(Self.path(workspace: workspaceID, channel: id))
        return channel
    }

    @discardableResult
    mutating func removeChannel(_ id: CSE118ID) -> Channel? {
        guard let slot = slot(of: id, .channel) else { return nil }
        let channel = channels[slot]
        workspaces[channel.workspace].channels.remove(slot)
        removeRows(ofChannel: slot)
        changes.touch(Self.path(workspace: workspaces[channel.workspace].id, channel: id))
        return channel
    }

    mutating func addMessage(id: CSE118ID, member: CSE118ID, posted: CSE118Timestamp, content: String,
                             to channelID: CSE118ID) -> Message? {
        guard let channel = slot(of: channelID, .channel) else { return nil }
        let message = Message(id: id, member: member, posted: posted, content: content, channel: channel)
        insert(message)
        changes.touch(Self.path(workspace: workspaces[channels[channel].workspace].id, channel: channelID, message: id))
        return message
    }

    @discardableResult
    mutating func removeMessage(_ id: CSE118ID) -> Message? {
        guard let slot = slot(of: id, .message), let message = messages.remove(slot) else { return nil }
        index.remove(id, at: Place(.message, slot))
        channels[message.channel].messages.remove(slot)
        let channel = channels[message.channel]
        changes.touch(Self.path(workspace: workspaces[channel.workspace].id, channel: channel.id, message: id))
        return message
    }

    /// The workspace row is written again with its member list: O(workspace), a rare change.
    mutating func addMember(_ memberID: CSE118ID, to workspaceID: CSE118ID) {
        guard let slot = slot(of: workspaceID, .workspace) else { return }
        workspaces[slot].members.append(memberID)
        changeMember(memberID) { $0.workspaces.append(slot) }
        changes.touch(Self.path(workspace: workspaceID))
    }

    /// Their messages stay in the workspace (docs/apis/cse118.md#endpoints).
    mutating func removeMember(_ memberID: CSE118ID, from workspaceID: CSE118ID) {
        guard let slot = slot(of: workspaceID, .workspace) else { return }
        workspaces[slot].members.removeAll { $0 == memberID }
        changeMember(memberID) { $0.workspaces.remove(slot) }
        changes.touch(Self.path(workspace: workspaceID))
    }

    /// `PUT /reset` for one caller (docs/apis/cse118.md#reset): the workspaces they created go, their fixture
    /// workspaces come back exactly as seeded, at their seed positions. Nothing else changes.
    /// Written as the whole workspace list, since fixtures return to places in the middle of it.
    mutating func restoreFixtures(of caller: CSE118ID) {
        let fixtures = seeded.ofStudent[caller] ?? []
        let created = workspaces(visibleTo: caller).filter { $0.owner == caller && $0.fixtureOf == nil }
        for id in created.map(\.id) + fixtures.map({ seeded.workspaces[$0].id }) { removeWorkspace(id) }
        for fixture in fixtures {
            var workspace = seeded.workspaces[fixture]
            workspace.channels = SlotList()
            let slot = insert(workspace)
            for seededChannel in seeded.workspaces[fixture].channels {
                var channel = seeded.channels[seededChannel]
                channel.workspace = slot
                channel.messages = SlotList()
                let channelSlot = insert(channel)
                for seededMessage in seeded.channels[seededChannel].messages {
                    var message = seeded.messages[seededMessage]
                    message.channel = channelSlot
                    insert(message)
                }
            }
        }
        changes.touchEverything(in: "workspaces")
    }

    /// Where a workspace, one of its channels, or a message in it sits in the seed document.
    private static func path(workspace: CSE118ID, channel: CSE118ID? = nil, message: CSE118ID? = nil) -> RowPath {
        var path = RowPath.row("workspaces", "id", .string(workspace.text))
        if let channel { path = path.row("channels", "id", .string(channel.text)) }
        if let message { path = path.row("messages", "id", .string(message.text)) }
        return path
    }

    private mutating func changeMember(_ id: CSE118ID, _ change: (inout Member) -> Void) {
        if let slot = slot(of: id, .member) { change(&members[Int(slot)]) }
    }

    /// A workspace whose channel list is empty; its channels are inserted after it.
    @discardableResult
    private mutating func insert(_ workspace: Workspace) -> Int32 {
        let slot = workspaces.insert(workspace)
        index.insert(Place(.workspace, slot), for: workspace.id)
        nextPosition = max(nextPosition, workspace.position + 1)
        for member in [workspace.owner] + workspace.members { changeMember(member) { $0.workspaces.append(slot) } }
        return slot
    }

    /// A channel whose message list is empty, after its workspace's others.
    @discardableResult
    private mutating func insert(_ channel: Channel) -> Int32 {
        let slot = channels.insert(channel)
        index.insert(Place(.channel, slot), for: channel.id)
        workspaces[channel.workspace].channels.append(slot)
        return slot
    }

    /// A message after its channel's others.
    private mutating func insert(_ message: Message) {
        let slot = messages.insert(message)
        index.insert(Place(.message, slot), for: message.id)
        channels[message.channel].messages.append(slot)
    }

    /// A channel's row and its messages', its workspace's list left as it is.
    private mutating func removeRows(ofChannel slot: Int32) {
        guard let channel = channels.remove(slot) else { return }
        index.remove(channel.id, at: Place(.channel, slot))
        for message in channel.messages {
            if let removed = messages.remove(message) { index.remove(removed.id, at: Place(.message, message)) }
        }
    }
}

// MARK: Seed format

extension CSE118State {
    /// Reads and checks a seed or state document (`Seed/cse118.json`, docs/apis/cse118.md#accounts).
    init(seed document: SeedJSON) throws(SeedError) {
        do {
            self = try CSE118State(document, checkingIDsAsRead: false)
        } catch {
            // Unchecked as read, a duplicate id is found at the end of its list, maybe after another
            // problem further on: read again checking each id, to report the first in the document.
            self = try CSE118State(document, checkingIDsAsRead: true)
        }
    }

    /// Without `checkingIDsAsRead`, the ids of a list of rows are filed and checked unique
    /// together when the list ends, which is much faster for a large one.
    private init(_ document: SeedJSON, checkingIDsAsRead: Bool) throws(SeedError) {
        var state = CSE118State()
        // Reading a seed is no change: nothing is recorded meanwhile.
        state.changes.isRecording = false
        let outcome = document.withUnsafeBytes { text in
            Result { () throws(SeedError) in try state.read(document, text: text, checkingIDsAsRead: checkingIDsAsRead) }
        }
        try outcome.get()
        state.changes = StateChanges()
        self = state
    }

    /// Builds the tables from the document, whose bytes are `text`. A row goes in its table as soon
    /// as its id is read (the first of its fields whatever their order), so the index can read it.
    private mutating func read(_ document: SeedJSON, text: UnsafeBufferPointer<UInt8>, checkingIDsAsRead: Bool) throws(SeedError) {
        var fixtures: [CSE118ID: [Int32]] = [:]
        try document.read { root throws(SeedError) in
            /// The `length` bytes inside the quotes of the string at `value`, taken as they are:
            /// the callers' parsers accept no backslash, so those are the string's own bytes.
            func plain(_ value: SeedReader, length: Int) -> UnsafeBufferPointer<UInt8>? {
                let start = value.offset
                guard start + length + 1 < text.count, text[start] == UInt8(ascii: "\""),
                      text[start + length + 1] == UInt8(ascii: "\"") else { return nil }
                return UnsafeBufferPointer(rebasing: text[start + 1..<start + 1 + length])
            }
            /// The bytes of the non-empty string at `value` when they are its text as they are: plain
            /// ASCII, no backslash. Otherwise nil, and the string is read the usual way.
            func plainText(_ value: SeedReader) -> UnsafeBufferPointer<UInt8>? {
                let start = value.offset + 1
                guard start < text.count, text[start - 1] == UInt8(ascii: "\"") else { return nil }
                var end = start
                while end < text.count, text[end] != UInt8(ascii: "\"") {
                    guard (0x20..<0x80).contains(text[end]), text[end] != UInt8(ascii: "\\") else { return nil }
                    end += 1
                }
                guard end < text.count, end > start else { return nil }
                return UnsafeBufferPointer(rebasing: text[start..<end])
            }
            /// A lowercase UUID, as every id of the API is.
            func uuid(_ value: inout SeedReader) throws(SeedError) -> CSE118ID {
                if let bytes = plain(value, length: 36), let id = CSE118ID(bytes) { return id }
                let text = try value.string()
                guard let id = CSE118ID(text) else { throw value.fail("expected a lowercase UUID, got \(text)") }
                return id
            }
            func existing(_ id: CSE118ID) -> Place? {
                index.find(id) { self.id(at: $0) }
            }
            /// The id of a new row, which no other row has; the row must go at `place` next.
            func newID(_ value: inout SeedReader, _ place: Place) throws(SeedError) -> CSE118ID {
                let id = try uuid(&value)
                guard checkingIDsAsRead else {
                    index.fileLater(place, for: id)
                    return id
                }
                guard existing(id) == nil else { throw value.fail("duplicate id \(id.text)") }
                index.insert(place, for: id)
                return id
            }
            /// Files the ids (and emails) of the list at `value` that were not checked as read.
            func fileIDs(of value: SeedReader) throws(SeedError) {
                for (filed, kept) in index.filePending() where id(at: filed) == id(at: kept) {
                    throw value.fail("duplicate id \(id(at: kept).text)")
                }
                for (filed, kept) in memberSlotByEmail.filePending()
                where withEmail(of: filed, { email in withEmail(of: kept) { CSE118EmailIndex.sameKey(email, $0) } }) {
                    throw value.fail("duplicate email \(email(of: members[Int(kept)]))")
                }
            }
            /// The slot of the member `knownMember` found last. A channel's messages are often one
            /// member's, and workspaces often listed in their owners' order: the member looked for
            /// next is often that one or the next, found without the index (and its cache misses).
            var lastMember: Int32 = -1
            func knownMember(_ value: inout SeedReader) throws(SeedError) -> (id: CSE118ID, slot: Int32) {
                if let bytes = plain(value, length: 36), let id = CSE118ID(bytes) {
                    func isLooked(for slot: Int32) -> Bool { members.indices.contains(Int(slot)) && members[Int(slot)].id == id }
                    if isLooked(for: lastMember) { return (id, lastMember) }
                    if isLooked(for: lastMember + 1) {
                        lastMember += 1
                        return (id, lastMember)
                    }
                    if let place = existing(id), place.kind == .member {
                        lastMember = place.slot
                        return (id, place.slot)
                    }
                }
                let text = try value.string()
                guard let id = CSE118ID(text), let place = existing(id), place.kind == .member else {
                    throw value.fail("\(text) is not the id of a member")
                }
                return (id, place.slot)
            }
            /// `2023-05-01T12:18:48.000Z`, a real calendar time.
            func timestamp(_ value: inout SeedReader) throws(SeedError) -> CSE118Timestamp {
                if let bytes = plain(value, length: 24), let time = CSE118Timestamp(bytes) { return time }
                let text = try value.string()
                guard let time = CSE118Timestamp(text) else {
                    throw value.fail("expected YYYY-MM-DDTHH:MM:SS.mmmZ, got \(text)")
                }
                return time
            }
            func channel(_ item: inout SeedReader, in workspace: Int32) throws(SeedError) -> Int32 {
                let slot = channels.nextSlot
                try item.members(Keys.channel) { key, value throws(SeedError) in
                    switch key {
                    case 0: channels.insert(Channel(id: try newID(&value, Place(.channel, slot)), workspace: workspace))
                    case 1: channels[slot].name = try value.text()
                    default:
                        try value.elements { item throws(SeedError) in
                            let message = try message(&item, in: slot)
                            channels[slot].messages.append(message)
                        }
                    }
                }
                return slot
            }
            func message(_ item: inout SeedReader, in channel: Int32) throws(SeedError) -> Int32 {
                let slot = messages.nextSlot
                try item.members(Keys.message) { key, value throws(SeedError) in
                    switch key {
                    case 0: messages.insert(Message(id: try newID(&value, Place(.message, slot)), channel: channel))
                    case 1: messages[slot].member = try knownMember(&value).id
                    case 2: messages[slot].posted = try timestamp(&value)
                    default: messages[slot].content = try value.text()
                    }
                }
                return slot
            }
            try root.members(Keys.root) { key, value throws(SeedError) in
                switch key {
                case 0:
                    // Sized up front, so the tables of a large seed are not rehashed as they fill.
                    let count = try value.count()
                    members.reserveCapacity(count)
                    memberSlotByEmail.reserveCapacity(count)
                    try value.elements { item throws(SeedError) in
                        let slot = Int32(members.count)
                        try item.members(Keys.member) { key, value throws(SeedError) in
                            switch key {
                            case 0: members.append(Member(id: try newID(&value, Place(.member, slot))))
                            case 1: members[Int(slot)].name = try value.text()
                            case 2:
                                let start = Int32(emails.count)
                                if let bytes = plainText(value) { emails.append(contentsOf: bytes) } else { emails.append(contentsOf: try value.text().utf8) }
                                members[Int(slot)].emailBytes = start..<Int32(emails.count)
                            default: members[Int(slot)].password = try value.text()
                            }
                        }
                        let hash = Self.withEmail(of: slot, in: members, emails) { memberSlotByEmail.hash($0) }
                        guard checkingIDsAsRead else {
                            memberSlotByEmail.fileLater(slot, hash)
                            return
                        }
                        let found = Self.withEmail(of: slot, in: members, emails) { email in
                            memberSlotByEmail.find(email) { Self.withEmail(of: $0, in: members, emails, $1) }
                        }
                        if found != nil {
                            throw item.fail("duplicate email \(email(of: members[Int(slot)]))")
                        }
                        memberSlotByEmail.insert(slot, hash)
                    }
                    try fileIDs(of: value)
                case 1:
                    try value.elements { item throws(SeedError) in
                        let slot = workspaces.nextSlot
                        var listed: [(member: (id: CSE118ID, slot: Int32), offset: Int)] = []
                        var ownerSlot: Int32 = 0
                        try item.members(Keys.workspace) { key, value throws(SeedError) in
                            switch key {
                            case 0: workspaces.insert(Workspace(id: try newID(&value, Place(.workspace, slot)), position: Int(slot)))
                            case 1: workspaces[slot].name = try value.text()
                            case 2: (workspaces[slot].owner, ownerSlot) = try knownMember(&value)
                            case 3:
                                try value.elements { memberValue throws(SeedError) in
                                    listed.append((try knownMember(&memberValue), memberValue.offset))
                                }
                            case 4:
                                try value.elements { channelValue throws(SeedError) in
                                    let channel = try channel(&channelValue, in: slot)
                                    workspaces[slot].channels.append(channel)
                                }
                            default: workspaces[slot].fixtureOf = try knownMember(&value).id
                            }
                        }
                        members[Int(ownerSlot)].workspaces.append(slot)
                        for (member, offset) in listed {
                            if member.id == workspaces[slot].owner {
                                throw item.fail(at: offset, "the owner is not listed among the members")
                            }
                            if workspaces[slot].members.contains(member.id) {
                                throw item.fail(at: offset, "duplicate member \(member.id.text)")
                            }
                            workspaces[slot].members.append(member.id)
                            members[Int(member.slot)].workspaces.append(slot)
                        }
                        if let student = workspaces[slot].fixtureOf { fixtures[student, default: []].append(slot) }
                    }
                    try fileIDs(of: value)
                    nextPosition = Int(workspaces.nextSlot)
                default:
                    try value.elements { item throws(SeedError) in
                        var token = "", member = CSE118ID()
                        try item.members(Keys.token) { key, value throws(SeedError) in
                            if key == 0 { token = try value.text() } else { member = try knownMember(&value).id }
                        }
                        tokens[ExactText(token)] = member  // never ended by the limit on issued ones
                    }
                }
            }
        }
        seeded = Fixtures(workspaces: workspaces, channels: channels, messages: messages, ofStudent: fixtures)
    }

    private enum Keys {
        static let root = SeedKeys(["members", "workspaces"], optional: ["tokens"])
        static let member = SeedKeys(["id", "name", "email", "password"])
        static let workspace = SeedKeys(["id", "name", "owner", "members", "channels"], optional: ["fixtureOf"])
        static let channel = SeedKeys(["id", "name", "messages"])
        static let message = SeedKeys(["id", "member", "posted", "content"])
        static let token = SeedKeys(["token", "member"])
    }
}

extension CSE118State.Workspace {
    var shape: CSE118Shape.Workspace { .init(id: id.text, name: name, owner: owner.text, channels: channels.count) }
}

extension CSE118State.Channel {
    var shape: CSE118Shape.Channel { .init(id: id.text, name: name, messages: messages.count) }
}

extension CSE118State.Message {
    var shape: CSE118Shape.Message { .init(id: id.text, member: member.text, posted: posted.text, content: content) }
}

/// Rows found by slot. A removed row's slot goes to the next row added, so a table never holds
/// more slots than it once held rows.
///
/// The rows sit in chunks of a fixed number of slots: a table grows by one chunk at a time, never
/// copying (and touching fresh memory for) the rows it holds, as one array doubling would; and a
/// change to a table whose rows are shared (with the seed's fixtures) copies only the chunk changed.
struct Slots<Row> {
    private var chunks: [[Row?]] = []
    /// Slots handed out so far, free ones included.
    private var count = 0
    private var free: [Int32] = []

    private static var chunkBits: Int { 12 }

    /// The slot the next row added gets.
    var nextSlot: Int32 { free.last ?? Int32(count) }

    /// Every row, in slot order.
    var rows: some Sequence<Row> { chunks.lazy.joined().compactMap { $0 } }

    /// The row in a slot that holds one.
    subscript(slot: Int32) -> Row {
        get { chunks[Int(slot) >> Self.chunkBits][Int(slot) & (1 << Self.chunkBits - 1)]! }
        _modify { yield &chunks[Int(slot) >> Self.chunkBits][Int(slot) & (1 << Self.chunkBits - 1)]! }
    }

    @discardableResult
    mutating func insert(_ row: Row) -> Int32 {
        if let slot = free.popLast() {
            chunks[Int(slot) >> Self.chunkBits][Int(slot) & (1 << Self.chunkBits - 1)] = row
            return slot
        }
        if count >> Self.chunkBits == chunks.count {
            chunks.append([])
            chunks[chunks.count - 1].reserveCapacity(1 << Self.chunkBits)
        }
        chunks[chunks.count - 1].append(row)
        count += 1
        return Int32(count - 1)
    }

    @discardableResult
    mutating func remove(_ slot: Int32) -> Row? {
        let chunk = Int(slot) >> Self.chunkBits, place = Int(slot) & (1 << Self.chunkBits - 1)
        guard let row = chunks[chunk][place] else { return nil }
        chunks[chunk][place] = nil
        free.append(slot)
        return row
    }
}

/// Slots of rows in another table, in the order they were added. Most lists here hold one slot,
/// kept inline, so they take no allocation of their own.
struct SlotList: Sequence {
    /// -1 when the list is empty; then `rest` is too.
    private var first: Int32 = -1
    private var rest: [Int32] = []

    var count: Int { first < 0 ? 0 : 1 + rest.count }

    mutating func append(_ slot: Int32) {
        if first < 0 { first = slot } else { rest.append(slot) }
    }

    mutating func remove(_ slot: Int32) {
        if first == slot {
            first = rest.isEmpty ? -1 : rest.removeFirst()
        } else if let index = rest.firstIndex(of: slot) {
            rest.remove(at: index)
        }
    }

    struct Iterator: IteratorProtocol {
        fileprivate let list: SlotList
        /// -1 for `first`, then indices into `rest`.
        fileprivate var index = -1

        mutating func next() -> Int32? {
            defer { index += 1 }
            if index < 0 { return list.first < 0 ? nil : list.first }
            return index < list.rest.count ? list.rest[index] : nil
        }
    }

    func makeIterator() -> Iterator { Iterator(list: self) }
}

// MARK: Reload

extension CSE118State: TokenCarrying {
    public var liveTokenOwners: [(token: String, user: String)] {
        tokens.map { ($0.key.string, $0.value.text) }
    }

    /// The token counts as issued, so the bound on issued tokens still holds across reloads.
    public mutating func keepLiveToken(_ token: String, of user: String, from old: CSE118State) -> Bool {
        guard let id = CSE118ID(user), member(id) != nil else { return false }
        issueToken(token, member: id, limit: .max)
        return true
    }
}

extension Slots {
    /// The rows held, for the console line of a reload.
    var rowCount: Int { count - free.count }
}
