import Foundation
import MockHTTP
import MockKit
import MockSupport

/// WSUV Twitter's data (docs/apis/wsuv-twitter.md#endpoints): users with their stored token, and
/// every tweet ever posted, as the seed document has them (docs/apis/wsuv-twitter.md#accounts).
/// Users are found by name (byte for byte), tweets by id, and the tweets newer than a stamp in
/// O(log n + k), so a request costs the same with 10 tweets or 100,000.
public struct WSUVState: StoredState {
    struct User: TableRow {
        var username: String
        var password: String
        /// The live token; nil when logged out (`"0"` in the seed and the answers).
        var sessionToken: String?

        static let keyField = "username"
        var key: ExactText { ExactText(username) }
    }

    /// Users are never removed or renamed, so a tweet names its author by name.
    struct Tweet: TableRow {
        var id: Int
        var username: String
        /// `YYYY-MM-DD HH:MM:SS`, compared as text, as SQLite compared the column.
        var timeStamp: String
        var text: String
        var isDeleted: Bool

        static let keyField = "tweet_id"
        var key: Int { id }
    }

    /// A tweet's place in the stamp order: by time stamp, then by id.
    struct StampedTweet: Comparable {
        var stamp: [UInt8]
        var id: Int

        init(_ tweet: Tweet) {
            (stamp, id) = (Array(tweet.timeStamp.utf8), tweet.id)
        }

        static func < (lhs: Self, rhs: Self) -> Bool {
            lhs.stamp == rhs.stamp ? lhs.id < rhs.id : lhs.stamp.lexicographicallyPrecedes(rhs.stamp)
        }
    }

    /// The stored token of a logged-out user.
    static let loggedOut = "0"
    /// The text of a deleted tweet (the scripts' word; the course document's `[delete]` is a typo).
    static let deletedText = "[deleted]"

    /// Names compare byte for byte, as the scripts' SQL did; so do tokens.
    private(set) var users = Table<User>(indexes: [.unique(\.sessionToken, field: "session_token")])
    /// Tweets are never removed (a delete is an update), and the next id is the last one's + 1.
    private(set) var tweets = Table<Tweet>()
    /// Every tweet's (stamp, id), so `get-tweets.cgi?date=` finds the newer ones without a scan.
    private var tweetsByStamp = SortedIndex<StampedTweet>()

    public init() {}

    public static let format = SeedFormat<WSUVState>(
        .table("users", \.users, check: { user, state in
            guard let token = user.sessionToken, state.users.row(where: "session_token", is: token) != nil else { return nil }
            return .field("session_token", "another user holds this token")
        }),
        .table("tweets", \.tweets, order: { $0.id < $1.id }, check: { tweet, state in
            state.users.contains(ExactText(tweet.username)) ? nil : .field("username", "\(tweet.username) is not a user")
        })
    )

    public mutating func finishReading() {
        // Linear on tweets already in stamp order, as a saved state's and most seeds' are.
        tweetsByStamp = SortedIndex(sorted: tweets.rows.map(StampedTweet.init).sorted())
    }

    func user(_ username: String) -> User? { users[ExactText(username)] }

    /// Adds a user whose name is not taken.
    mutating func add(_ user: User) {
        users.insert(user)
    }

    mutating func setSessionToken(_ token: String?, of username: String) {
        users.update(ExactText(username)) { $0.sessionToken = token }
    }

    /// Adds a tweet with the next id, as SQLite's AUTOINCREMENT gives it; none after the largest integer.
    mutating func addTweet(_ text: String, author: String, stamp: String) throws(WSUVError) {
        let (id, overflow) = (tweets.last?.id ?? 0).addingReportingOverflow(1)
        guard !overflow else { throw .tweetIDsUsedUp }
        let tweet = Tweet(id: id, username: author, timeStamp: stamp, text: text, isDeleted: false)
        tweets.insert(tweet)
        tweetsByStamp.insert(StampedTweet(tweet))
    }

    /// A soft delete: the new stamp makes clients that fetch after their newest stamp see it.
    mutating func delete(_ id: Int, stamp: String) {
        guard var tweet = tweets[id] else { return }
        tweetsByStamp.remove(StampedTweet(tweet))
        (tweet.text, tweet.isDeleted, tweet.timeStamp) = (Self.deletedText, true, stamp)
        tweets.update(id) { $0 = tweet }
        tweetsByStamp.insert(StampedTweet(tweet))
    }

    /// `SELECT … WHERE time_stamp > ?date`, ascending id: the tweets stamped after `date` as text,
    /// or all of them for a `date` that SQLite reads as a number (see `SQLiteNumber`).
    func tweets(after date: [UInt8]) -> [Tweet] {
        if SQLiteNumber.isNumeric(date) { return Array(tweets.rows) }
        let newer = tweetsByStamp.elements { date.lexicographicallyPrecedes($0.stamp) }
        return newer.map(\.id).sorted().compactMap { tweets[$0] }
    }

    /// 160 random bits as 40 lowercase hex digits, never another user's live token.
    func mintToken(_ random: RandomStream) -> String {
        while true {
            let token = random.bytes(20).map { String($0 >> 4, radix: 16) + String($0 & 0xF, radix: 16) }.joined()
            if users.row(where: "session_token", is: token) == nil { return token }
        }
    }

    /// `YYYY-MM-DD HH:MM:SS` of a moment in the given zone, truncated to the second (SQLite's
    /// localtime). A time before year 0000 or after 9999, where SQLite's own date functions stop,
    /// is taken as the nearer end of that range (docs/apis/wsuv-twitter.md#time-stamps).
    static func stamp(_ date: Date, in zone: TimeZone) -> String {
        let unix = Int(date.timeIntervalSince1970.rounded(.down)) + zone.secondsFromGMT(for: date)
        let first = CivilTime(year: 0, month: 1, day: 1).unixSeconds
        let last = CivilTime(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59).unixSeconds
        return CivilTime(unixSeconds: min(max(unix, first), last)).sqlText
    }

    /// `^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`: only the shape is checked, stored stamps are text, never dates.
    static func isStamp(_ text: String) -> Bool {
        // Each `0` of the template stands for any digit.
        let template = "0000-00-00 00:00:00".utf8
        return text.utf8.count == template.count && zip(text.utf8, template).allSatisfy { byte, expected in
            expected == UInt8(ascii: "0") ? (48...57).contains(byte) : byte == expected
        }
    }
}

// MARK: Seed format (docs/apis/wsuv-twitter.md#accounts)

extension WSUVState.User {
    init(seed row: SeedFields) throws(SeedError) {
        username = try row.text("username")
        password = try row.text("password")
        sessionToken = try row.value("session_token") { value throws(SeedError) in
            // Clients keep the token as a string: any text but the logged-out "0" is a live token.
            let token = try value.text()
            return token == WSUVState.loggedOut ? nil : token
        }
    }

    func write(to seed: inout SeedFieldWriter) {
        seed.field("username", username)
        seed.field("password", password)
        seed.field("session_token", sessionToken ?? WSUVState.loggedOut)
    }
}

extension WSUVState.Tweet {
    init(seed row: SeedFields) throws(SeedError) {
        id = try row.int("tweet_id", where: { $0 >= 1 }, else: "must be 1 or more")
        username = try row.string("username")
        timeStamp = try row.string("time_stamp")
        guard WSUVState.isStamp(timeStamp) else {
            throw row.fail("time_stamp", "expected YYYY-MM-DD HH:MM:SS, got \(timeStamp)")
        }
        isDeleted = try row.int("isdeleted", where: { $0 == 0 || $0 == 1 }, else: "expected 0 or 1") == 1
        text = try row.string("tweet")
    }

    /// Also `get-tweets.cgi`'s shape of a tweet: `tweet_id, username, time_stamp, tweet, isdeleted`.
    func write(to seed: inout SeedFieldWriter) {
        seed.field("tweet_id", id)
        seed.field("username", username)
        seed.field("time_stamp", timeStamp)
        seed.field("tweet", text)
        seed.field("isdeleted", isDeleted ? 1 : 0)
    }
}

// MARK: Reload

extension WSUVState: TokenCarrying {
    public var liveTokenOwners: [(token: String, user: String)] {
        users.rows.compactMap { user in user.sessionToken.map { ($0, user.username) } }
    }

    /// A user the reloaded seed logs out (`"0"`) keeps the live token; a token the seed gives wins.
    public mutating func keepLiveToken(_ token: String, of user: String, from old: WSUVState) -> Bool {
        guard let row = self.user(user), row.sessionToken == nil, users.row(where: "session_token", is: token) == nil else { return false }
        setSessionToken(token, of: user)
        return true
    }
}
