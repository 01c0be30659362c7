import Foundation
import MockHTTP
import MockKit

/// WSUV Twitter's data (docs/apis/wsuv-twitter.md#endpoints): users with their stored token, and every tweet ever posted.
/// Users are found by name (byte for byte) in O(1), tweets by id in O(1) while the ids have no gaps
/// (O(log n) after one), and the tweets newer than a stamp in O(log n + k), so a request costs the
/// same with 10 tweets or 100,000; users and tweets change only through the methods below, which
/// keep the lookups in step.
public struct WSUVState {
    struct User {
        var username: String
        var password: String
        /// The live token, or `"0"` when logged out.
        var sessionToken: String
    }

    /// Users are never removed or renamed, so a tweet names its author by place in `users`; its
    /// text is in `texts`. 32 bytes.
    struct Tweet {
        var id: Int
        var timeStamp: TweetStamp
        var text: TweetTexts.Place
        var author: Int32
        var isDeleted: Bool
    }

    /// A tweet's place in the stamp order: by time stamp, then by id.
    struct StampedTweet: Comparable {
        var stamp: TweetStamp
        var id: Int

        init(_ tweet: Tweet) {
            (stamp, id) = (tweet.timeStamp, tweet.id)
        }

        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.stamp, lhs.id) < (rhs.stamp, rhs.id) }
    }

    /// The stored token of a logged-out user.
    static let loggedOut = "0"
    /// The text of a deleted tweet (the scripts' word; the course document's `[delete]` is a typo).
    static let deletedText = "[deleted]"

    private(set) var users: [User] = []
    /// Names compare byte for byte, as the scripts' SQL did.
    private var userIndexByName = NameIndex()
    private var liveTokens: Set<ExactText> = []
    /// In ascending id: tweets are never removed, and the next id is the last one's + 1.
    private(set) var tweets: [Tweet] = []
    private var texts = TweetTexts()
    /// Every tweet's (stamp, id), so `get-tweets.cgi?date=` finds the newer ones without a scan.
    private var tweetsByStamp = SortedIndex<StampedTweet>()
    public var changes = StateChanges()

    func userIndex(_ username: String) -> Int? {
        userIndexByName.row(named: username, in: users, nameOf: { $0.username })
    }

    /// Adds a user, unless the name is taken: then the place of the user who has it.
    mutating func add(_ user: User) -> Int? {
        if let taken = userIndexByName.insert(users.count, named: user.username, in: users, nameOf: { $0.username }) { return taken }
        if user.sessionToken != Self.loggedOut { liveTokens.insert(ExactText(user.sessionToken)) }
        users.append(user)
        changes.touch(.row("users", "username", .string(user.username)))
        return nil
    }

    mutating func setSessionToken(_ token: String, ofUser index: Int) {
        liveTokens.remove(ExactText(users[index].sessionToken))
        if token != Self.loggedOut { liveTokens.insert(ExactText(token)) }
        users[index].sessionToken = token
        changes.touch(.row("users", "username", .string(users[index].username)))
    }

    /// The id after the newest, as SQLite's AUTOINCREMENT gives it; none after the largest integer.
    private var nextTweetID: Int? {
        let (next, overflow) = (tweets.last?.id ?? 0).addingReportingOverflow(1)
        return overflow ? nil : next
    }

    /// The place in `tweets` of the tweet with this id. Seeds number their tweets 1, 2, 3…, and
    /// later ones follow on, so the id usually says where it is; otherwise a bisection finds it.
    private func tweetIndex(_ id: Int) -> Int? {
        guard let first = tweets.first else { return nil }
        let guess = id &- first.id
        if guess >= 0, guess < tweets.count, tweets[guess].id == id { return guess }
        var low = 0, high = tweets.count
        while low < high {
            let middle = (low + high) / 2
            if tweets[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < tweets.count && tweets[low].id == id ? low : nil
    }

    func tweet(_ id: Int) -> Tweet? { tweetIndex(id).map { tweets[$0] } }

    /// Adds a tweet with the next id, if there is one.
    mutating func addTweet(_ text: String, author: Int, stamp: TweetStamp) throws(WSUVError) {
        guard let id = nextTweetID else { throw .tweetIDsUsedUp }
        let tweet = Tweet(id: id, timeStamp: stamp, text: texts.append(text), author: Int32(author), isDeleted: false)
        tweets.append(tweet)
        tweetsByStamp.insert(StampedTweet(tweet))
        changes.touch(.row("tweets", "tweet_id", .int(tweet.id)))
    }

    /// Puts a changed tweet in place of the one with its id, which must be there.
    mutating func replace(_ tweet: Tweet) {
        guard let index = tweetIndex(tweet.id) else { preconditionFailure("WSUVState.replace of a missing tweet") }
        tweetsByStamp.remove(StampedTweet(tweets[index]))
        if tweets[index].text != tweet.text { texts.release(tweets[index].text) }
        tweets[index] = tweet
        tweetsByStamp.insert(StampedTweet(tweet))
        changes.touch(.row("tweets", "tweet_id", .int(tweet.id)))
        if texts.isMostlyUnused { copyLiveTexts() }
    }

    /// Moves the live tweets' texts into a fresh buffer, leaving the deleted ones' bytes behind.
    private mutating func copyLiveTexts() {
        var fresh = TweetTexts()
        for index in tweets.indices { tweets[index].text = texts.copy(tweets[index].text, to: &fresh) }
        texts = fresh
    }

    /// `SELECT … WHERE time_stamp > ?date`, ascending id: the tweets stamped after `date` as text,
    /// or all of them for a `date` that SQLite reads as a number (see `SQLiteNumber`).
    func tweets(after date: [UInt8]) -> [Tweet] {
        if SQLiteNumber.isNumeric(date) { return tweets }
        let newer = tweetsByStamp.elements { $0.stamp.isAfter(date) }
        return newer.map(\.id).sorted().compactMap(tweet)
    }

    /// 160 random bits as 40 lowercase hex digits, never another user's live token.
    func mintToken(_ random: RandomStream) -> String {
        while true {
            let token = random.bytes(20).map(hex).joined()
            if !liveTokens.contains(ExactText(token)) { return token }
        }
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    func shape(_ tweet: Tweet) -> TweetShape {
        TweetShape(tweetID: tweet.id, username: users[Int(tweet.author)].username, timeStamp: tweet.timeStamp.text,
                   tweet: texts[tweet.text], isDeleted: tweet.isDeleted ? 1 : 0)
    }

    /// `^[0-9a-f]{40}$`
    static func isMintedToken(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// `YYYY-MM-DD HH:MM:SS` of a moment in the given zone, truncated to the second (SQLite's localtime).
    static func stamp(_ date: Date, in zone: TimeZone) -> TweetStamp {
        let unix = Int(date.timeIntervalSince1970.rounded(.down))
        return TweetStamp(CivilTime(unixSeconds: unix + zone.secondsFromGMT(for: date)))
    }
}

// MARK: Seed format

extension WSUVState {
    /// Reads and checks a seed or state document (`Seed/wsuv.json`, docs/apis/wsuv-twitter.md#accounts).
    init(seed document: SeedJSON) throws(SeedError) {
        // Reading a seed is no change: nothing is recorded meanwhile.
        changes.isRecording = false
        defer { changes = StateChanges() }
        // Rows are appended uncounted, into room for as many as the document could hold: room
        // costs address space, not memory, until rows fill it, and nothing is copied as they come.
        // No text is longer than the JSON string it is read from.
        let size = document.bytes.count
        users.reserveCapacityInHugePages(size / Self.smallestUserJSON.utf8.count)
        tweets.reserveCapacityInHugePages(size / Self.smallestTweetJSON.utf8.count)
        texts = TweetTexts(capacity: size)
        let outcome = document.bytes.withUnsafeBufferPointer { text in
            Result { () throws(SeedError) in try read(document, text: text) }
        }
        try outcome.get()
        var stamped = tweets.map(StampedTweet.init)
        // Linear on tweets already in stamp order, as a saved state's and most seeds' are.
        stamped.sort()
        tweetsByStamp = SortedIndex(sorted: stamped)
    }

    private static let smallestUserJSON = #"{"username":"u","password":"p","session_token":"0"}"#
    private static let smallestTweetJSON = #"{"tweet_id":1,"username":"u","time_stamp":"2016-01-01 00:00:00","isdeleted":0,"tweet":""}"#

    private enum Keys {
        static let root = SeedKeys(["users", "tweets"])
        static let user = SeedKeys(["username", "password", "session_token"])
        static let tweet = SeedKeys(["tweet_id", "username", "time_stamp", "isdeleted", "tweet"])
    }

    /// Reads `document`, whose bytes are `text`, into the empty state.
    private mutating func read(_ document: SeedJSON, text: UnsafeBufferPointer<UInt8>) throws(SeedError) {
        try document.read { root throws(SeedError) in
            try root.members(Keys.root) { key, value throws(SeedError) in
                if key == 0 {
                    try readUsers(&value, text: text)
                } else {
                    try readTweets(&value, text: text)
                }
            }
        }
    }

    /// The users are indexed by name once all are read, in a table made the right size at once
    /// (none grown and left behind); a problem in a row still comes after a repeated name in an
    /// earlier one, as if each had been indexed when read.
    private mutating func readUsers(_ array: inout SeedReader, text: UnsafeBufferPointer<UInt8>) throws(SeedError) {
        let start = array
        do throws(SeedError) {
            try array.elements { item throws(SeedError) in try readUser(&item, text: text) }
        } catch {
            try indexUsers(in: start)
            throw error
        }
        try indexUsers(in: start)
    }

    private mutating func readUser(_ item: inout SeedReader, text: UnsafeBufferPointer<UInt8>) throws(SeedError) {
        var user = User(username: "", password: "", sessionToken: "")
        try item.members(Keys.user) { key, value throws(SeedError) in
            switch key {
            case 0: user.username = try value.text()
            case 1: user.password = try value.text()
            default:
                // Most users are logged out: their "0" needs no string of its own.
                user.sessionToken = try SeedString.withUTF8(of: &value, in: text) { token in
                    token.elementsEqual(Self.loggedOut.utf8) ? Self.loggedOut : String(decoding: token, as: UTF8.self)
                }
                guard user.sessionToken != Self.loggedOut else { return }
                guard Self.isMintedToken(user.sessionToken) else { throw value.fail("expected \"0\" or 40 lowercase hex digits") }
                if liveTokens.contains(ExactText(user.sessionToken)) { throw value.fail("another user holds this token") }
            }
        }
        if user.sessionToken != Self.loggedOut { liveTokens.insert(ExactText(user.sessionToken)) }
        users.append(user)
    }

    /// Indexes the users read from the array `array` starts; the first whose name an earlier one
    /// has is the error.
    private mutating func indexUsers(in array: SeedReader) throws(SeedError) {
        var index = NameIndex()
        if let row = index.insert(users.indices, of: users, nameOf: { $0.username }) {
            // Found again only now, the row's place is where the array's element of that number starts.
            var elements = array, offset = 0, count = 0
            try? elements.elements { item throws(SeedError) in
                if count == row { offset = item.offset }
                count += 1
            }
            throw array.fail(at: offset, "duplicate username \(users[row].username)")
        }
        userIndexByName = index
    }

    private mutating func readTweets(_ array: inout SeedReader, text: UnsafeBufferPointer<UInt8>) throws(SeedError) {
        // The users are all read by now: members come in the order of `Keys.root`.
        let (users, names) = (users, userIndexByName)
        // Ids in ascending order, as saved states and most seeds have them, cannot repeat: a set of
        // the ids read is kept only from the first one that is not above the one before.
        var earlierIDs: Set<Int>?
        try array.elements { item throws(SeedError) in
            let tweet = try Self.tweet(&item, in: text, users: users, names: names, texts: &texts)
            if earlierIDs == nil, let last = tweets.last, tweet.id <= last.id { earlierIDs = Set(tweets.map(\.id)) }
            if earlierIDs?.insert(tweet.id).inserted == false { throw item.fail("duplicate tweet_id \(tweet.id)") }
            tweets.append(tweet)
        }
        if earlierIDs != nil { tweets.sort { $0.id < $1.id } }
    }

    /// A tweet of a document whose bytes are `document`, by one of `users`; its text goes into `texts`.
    private static func tweet(_ item: inout SeedReader, in document: UnsafeBufferPointer<UInt8>, users: [User], names: NameIndex,
                              texts: inout TweetTexts) throws(SeedError) -> Tweet {
        var author = 0, id = 0, stamp: TweetStamp?, text = TweetTexts.deleted, isDeleted = false
        try item.members(Keys.tweet) { key, value throws(SeedError) in
            switch key {
            case 0:
                id = try value.int()
                guard id >= 1 else { throw value.fail("must be 1 or more") }
            case 1:
                author = try SeedString.parse(&value, in: document, { names.row(named: $0, in: users) { $0.username } },
                                              else: { "\($0) is not a user" })
            case 2:
                stamp = try SeedString.parse(&value, in: document, TweetStamp.init(utf8:),
                                             else: { "expected YYYY-MM-DD HH:MM:SS, got \($0)" })
            case 3:
                let deleted = try value.int()
                guard deleted == 0 || deleted == 1 else { throw value.fail("expected 0 or 1") }
                isDeleted = deleted == 1
            default:
                text = try SeedString.withUTF8(of: &value, in: document) { texts.append($0) }
            }
        }
        // Every key is required, so the stamp was read.
        return Tweet(id: id, timeStamp: stamp!, text: text, author: Int32(author), isDeleted: isDeleted)
    }
}

extension WSUVState: TouchedState {
    public func seedRow(at path: RowPath) -> [UInt8]? {
        let step = path.steps[0]
        switch (step.member, step.key) {
        case let ("users", .string(username)?):
            return userIndex(username).map { OrderedJSON.encode(WSUVSeedFile.User(users[$0]), escapeSlash: false) }
        case let ("tweets", .int(id)?):
            return tweet(id).map { OrderedJSON.encode(shape($0), escapeSlash: false) }
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
        tweets = state.tweets.map(state.shape)
    }
}

// MARK: Reload

extension WSUVState: TokenCarrying {
    public var liveTokenOwners: [(token: String, user: String)] {
        users.filter { $0.sessionToken != Self.loggedOut }.map { ($0.sessionToken, $0.username) }
    }

    /// A user the reloaded seed logs out (`"0"`) keeps the live token; a token the seed gives wins.
    public mutating func keepLiveToken(_ token: String, of user: String, from old: WSUVState) -> Bool {
        guard let index = userIndex(user), users[index].sessionToken == Self.loggedOut,
              !liveTokens.contains(ExactText(token)) else { return false }
        setSessionToken(token, ofUser: index)
        return true
    }
}
