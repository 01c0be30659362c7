import Foundation

/// How many rows each table of a seed holds, in the seed file's order (`users`, `threads`, `messages`).
public struct TableCounts: Equatable, Sendable {
    public struct Count: Equatable, Sendable {
        public var table: String
        public var rows: Int
    }

    public var counts: [Count]

    public init(_ counts: [Count]) {
        self.counts = counts
    }

    public init(_ counts: KeyValuePairs<String, Int>) {
        self.init(counts.map { Count(table: $0.key, rows: $0.value) })
    }

    /// `4 users, 5 threads (+1), 12 messages`: each table's rows, and the change from `old` where
    /// there is one. A table of one row is named without its plural `s` (`1 user`).
    public func described(since old: TableCounts) -> String {
        counts.map { count in
            let name = count.rows == 1 && count.table.hasSuffix("s") ? String(count.table.dropLast()) : count.table
            let change = count.rows - (old.counts.first { $0.table == count.table }?.rows ?? 0)
            return "\(count.rows) \(name)" + (change == 0 ? "" : change > 0 ? " (+\(change))" : " (\(change))")
        }.joined(separator: ", ")
    }
}

/// A state whose live tokens can outlive a `--watch` reload (docs/admin.md#live-reload---watch):
/// the tokens of users the reloaded seed still has are kept, the others end.
public protocol TokenCarrying {
    /// Every live token, with the key of its user in the seed (`2`, `alice`).
    var liveTokenOwners: [(token: String, user: String)] { get }
    /// Called on a state fresh from the reloaded seed: makes `token`, live in `old` for `user`,
    /// live here for the same user as it was; false when this state has no such user.
    mutating func keepLiveToken(_ token: String, of user: String, from old: Self) -> Bool
}

/// The live tokens a reload kept, and those it ended (their users are no longer in the seed).
public struct KeptTokens: Sendable {
    public var kept = 0
    public var ended: Set<String> = []

    /// `3 live tokens kept`, `2 live tokens kept, 1 ended (its user is no longer in the seed)`.
    public var description: String {
        if kept == 0 && ended.isEmpty { return "no live tokens" }
        var text = "\(kept) live \(kept == 1 ? "token" : "tokens") kept"
        if !ended.isEmpty {
            text += ", \(ended.count) ended (" + (ended.count == 1 ? "its user is" : "their users are") + " no longer in the seed)"
        }
        return text
    }
}

/// What a `--watch` reload changed, for its console line:
/// `4 users, 5 threads (+1), 12 messages; 2 live tokens kept`.
public struct SeedReload: Sendable, CustomStringConvertible {
    public var before: TableCounts
    public var after: TableCounts
    public var tokens: KeptTokens

    public var description: String {
        after.described(since: before) + "; " + tokens.description
    }
}

/// When the reload that ended a token happened, for the reason of its 401.
public struct TokenEndedByReload: Equatable, Sendable {
    public var at: Date
}
