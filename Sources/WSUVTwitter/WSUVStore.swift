import Foundation
import MockHTTP
import MockKit

/// WSUV Twitter's data (docs/apis/wsuv-twitter.md#endpoints): users with their stored token, and every tweet ever posted.
/// Users are found by name (byte for byte) and tweets by id in O(1), and the tweets newer than a
/// stamp in O(log n + k), so a request costs the same with 10 tweets or 100,000; users and tweets
/// change only through the methods below, which keep the lookups in step.
public struct WSUVState {
    struct User {
        var username: String
        var password: String
        /// The live token, or `"0"` when logged out.
        var sessionToken: String
    }

    struct Tweet: Identifiable {
        var id: Int
        var username: String
        var timeStamp: String
        var text: String
        var isDeleted: Bool
    }

    /// A tweet's place in the stamp order: by time stamp, then by id.
    struct StampedTweet: Comparable {
        /// The stamp's digits as one number (`2016-04-21 17:05:43` → 20160421170543). Every stamp
        /// has the one shape `YYYY-MM-DD HH:MM:SS`, so the numbers sort as the stamps' bytes do.
        var key: Int
        var id: Int
        var stamp: String

        init(_ tweet: Tweet) {
            key = tweet.timeStamp.utf8.reduce(0) { $1 >= 48 && $1 <= 57 ? $0 * 10 + Int($1 - 48) : $0 }
            id = tweet.id
            stamp = tweet.timeStamp
        }

        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.key, lhs.id) < (rhs.key, rhs.id) }

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key && lhs.id == rhs.id }
    }

    /// The stored token of a logged-out user.
    static let loggedOut = "0"
    /// The text of a deleted tweet (the scripts' word; the course document's `[delete]` is a typo).
    static let deletedText = "[deleted]"

    private(set) var users: [User] = []
    /// Names compare byte for byte (`ExactText`), as the scripts' SQL did.
    private var userIndexByName: [ExactText: Int] = [:]
    private var liveTokens: Set<ExactText> = []
    /// Tweets are never removed, so the next id is the last one's + 1.
    private(set) var tweets = IDTable<Tweet>()
    /// Every tweet's (stamp, id), so `get-tweets.cgi?date=` finds the newer ones without a scan.
    private var tweetsByStamp = SortedIndex<StampedTweet>()
    public var changes = StateChanges()

    func userIndex(_ username: String) -> Int? { userIndexByName[ExactText(username)] }

    /// Adds a user whose name is not taken.
    mutating func add(_ user: User) {
        userIndexByName[ExactText(user.username)] = users.count
        if user.sessionToken != Self.loggedOut { liveTokens.insert(ExactText(user.sessionToken)) }
        users.append(user)
        changes.touch(.row("users", "username", .string(user.username)))
    }

    mutating func setSessionToken(_ token: String, ofUser index: Int) {
        liveTokens.remove(ExactText(users[index].sessionToken))
        if token != Self.loggedOut { liveTokens.insert(ExactText(token)) }
        users[index].sessionToken = token
        changes.touch(.row("users", "username", .string(users[index].username)))
    }

    var nextTweetID: Int { (tweets.last?.id ?? 0) + 1 }

    /// Adds a tweet whose id is above every earlier one.
    mutating func add(_ tweet: Tweet) {
        tweets.append(tweet)
        tweetsByStamp.insert(StampedTweet(tweet))
        changes.touch(.row("tweets", "tweet_id", .int(tweet.id)))
    }

    /// Puts a changed tweet in place of the one with its id.
    mutating func replace(_ tweet: Tweet) {
        if let old = tweets[tweet.id] { tweetsByStamp.remove(StampedTweet(old)) }
        tweets.replace(tweet)
        tweetsByStamp.insert(StampedTweet(tweet))
        changes.touch(.row("tweets", "tweet_id", .int(tweet.id)))
    }

    /// `SELECT … WHERE time_stamp > ?date`, ascending id: the tweets stamped after `date` as text,
    /// or all of them for a `date` that SQLite reads as a number (see `SQLiteNumber`).
    func tweets(after date: [UInt8]) -> [Tweet] {
        if SQLiteNumber.isNumeric(date) { return Array(tweets.rows) }
        let newer = tweetsByStamp.elements { date.lexicographicallyPrecedes($0.stamp.utf8) }
        return newer.map(\.id).sorted().compactMap { tweets[$0] }
    }

    /// 160 random bits as 40 lowercase hex digits, never another user's live token.
    func mintToken() -> String {
        var generator = SystemRandomNumberGenerator()
        while true {
            let token = (0..<20).map { _ in hex(UInt8.random(in: 0...255, using: &generator)) }.joined()
            if !liveTokens.contains(ExactText(token)) { return token }
        }
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    func shape(_ tweet: Tweet) -> TweetShape {
        TweetShape(tweetID: tweet.id, username: tweet.username, timeStamp: tweet.timeStamp, tweet: tweet.text,
                   isDeleted: tweet.isDeleted ? 1 : 0)
    }

    /// `^[0-9a-f]{40}$`
    static func isMintedToken(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// `^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`: the shape only; stored stamps are text, never dates.
    static func isStampShaped(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 19 else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            switch index {
            case 4, 7: return byte == UInt8(ascii: "-")
            case 10: return byte == UInt8(ascii: " ")
            case 13, 16: return byte == UInt8(ascii: ":")
            default: return (48...57).contains(byte)
            }
        }
    }

    /// `YYYY-MM-DD HH:MM:SS` of a moment in the given zone, truncated to the second (SQLite's localtime).
    static func stamp(_ date: Date, in zone: TimeZone) -> String {
        let unix = Int(date.timeIntervalSince1970.rounded(.down))
        return CivilTime(unixSeconds: unix + zone.secondsFromGMT(for: date)).sqlText
    }
}

// MARK: Seed format

extension WSUVState {
    /// Reads and checks a seed or state document (`Seed/wsuv.json`, docs/apis/wsuv-twitter.md#accounts).
    init(seed document: SeedJSON) throws(SeedError) {
        // Reading a seed is no change: nothing is recorded meanwhile.
        changes.isRecording = false
        defer { changes = StateChanges() }
        var seededTweets: [Tweet] = [], tweetIDs = Set<Int>()
        try document.read { root throws(SeedError) in
            try root.members(Keys.root) { key, value throws(SeedError) in
                // Sized up front, so the tables of a large seed are not rehashed as they fill.
                let count = try value.count()
                if key == 0 {
                    users.reserveCapacity(count)
                    userIndexByName.reserveCapacity(count)
                    try value.elements { item throws(SeedError) in try addUser(&item) }
                } else {
                    seededTweets.reserveCapacity(count)
                    tweetIDs.reserveCapacity(count)
                    try value.elements { item throws(SeedError) in
                        let tweet = try Self.tweet(&item, isUser: { userIndex($0) != nil })
                        if !tweetIDs.insert(tweet.id).inserted { throw item.fail("duplicate tweet_id \(tweet.id)") }
                        seededTweets.append(tweet)
                    }
                }
            }
        }
        // Both sorts are linear on rows already in order, as a saved state's and most seeds' are.
        tweets = IDTable(seededTweets)
        tweetsByStamp = SortedIndex(sorted: seededTweets.map(StampedTweet.init).sorted())
    }

    private enum Keys {
        static let root = SeedKeys(["users", "tweets"])
        static let user = SeedKeys(["username", "password", "session_token"])
        static let tweet = SeedKeys(["tweet_id", "username", "time_stamp", "isdeleted", "tweet"])
    }

    private mutating func addUser(_ item: inout SeedReader) throws(SeedError) {
        var user = User(username: "", password: "", sessionToken: "")
        let row = item.offset
        try item.members(Keys.user) { key, value throws(SeedError) in
            switch key {
            case 0: user.username = try value.text()
            case 1: user.password = try value.text()
            default:
                user.sessionToken = try value.string()
                guard user.sessionToken != Self.loggedOut else { return }
                guard Self.isMintedToken(user.sessionToken) else { throw value.fail("expected \"0\" or 40 lowercase hex digits") }
                if liveTokens.contains(ExactText(user.sessionToken)) { throw value.fail("another user holds this token") }
            }
        }
        if userIndex(user.username) != nil { throw item.fail(at: row, "duplicate username \(user.username)") }
        add(user)
    }

    private static func tweet(_ item: inout SeedReader, isUser: (String) -> Bool) throws(SeedError) -> Tweet {
        var tweet = Tweet(id: 0, username: "", timeStamp: "", text: "", isDeleted: false)
        try item.members(Keys.tweet) { key, value throws(SeedError) in
            switch key {
            case 0:
                tweet.id = try value.int()
                guard tweet.id >= 1 else { throw value.fail("must be 1 or more") }
            case 1:
                tweet.username = try value.string()
                guard isUser(tweet.username) else { throw value.fail("\(tweet.username) is not a user") }
            case 2:
                tweet.timeStamp = try value.string()
                guard isStampShaped(tweet.timeStamp) else { throw value.fail("expected YYYY-MM-DD HH:MM:SS, got \(tweet.timeStamp)") }
            case 3:
                let deleted = try value.int()
                guard deleted == 0 || deleted == 1 else { throw value.fail("expected 0 or 1") }
                tweet.isDeleted = deleted == 1
            default:
                tweet.text = try value.string()
            }
        }
        return tweet
    }
}

extension WSUVState: LoggedState {
    public func seedRow(at path: RowPath) -> [UInt8]? {
        let step = path.steps[0]
        switch (step.member, step.key) {
        case let ("users", .string(username)?):
            return userIndex(username).map { OrderedJSON.encode(WSUVSeedFile.User(users[$0]), escapeSlash: false) }
        case let ("tweets", .int(id)?):
            return tweets[id].map { OrderedJSON.encode(shape($0), escapeSlash: false) }
        default:
            return nil
        }
    }
}

/// The seed file's shape, written by `GET /_mock/state/wsuv`: live tokens sit in `session_token`.
struct WSUVSeedFile: Encodable {
    struct User: Encodable {
        var username: String, password: String, sessionToken: String

        enum CodingKeys: String, CodingKey {
            case username, password, sessionToken = "session_token"
        }

        init(_ user: WSUVState.User) {
            (username, password, sessionToken) = (user.username, user.password, user.sessionToken)
        }
    }

    var users: [User]
    var tweets: [TweetShape]

    init(_ state: WSUVState) {
        users = state.users.map(User.init)
        tweets = state.tweets.rows.map(state.shape)
    }
}
