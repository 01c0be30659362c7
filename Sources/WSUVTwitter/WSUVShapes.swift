/// The JSON answers of the five scripts (docs/apis/wsuv-twitter.md#endpoints), keys in declaration order.

struct TweetShape: Encodable {
    var tweet_id: Int
    var username: String
    var time_stamp: String
    var tweet: String
    var isdeleted: Int
}

/// `get-tweets.cgi`: `{"tweets":[…]}`.
struct TweetList: Encodable {
    var tweets: [TweetShape]
}

/// `register.cgi` and `login.cgi`: `{"session_token":"…"}` (`"0"` after a logout).
struct SessionAnswer: Encodable {
    var session_token: String
}

/// `add-tweet.cgi`: the text as decoded.
struct TweetAdded: Encodable {
    var tweet: String
}

/// `del-tweet.cgi`: the id echoed as the string that was sent (`"008"`).
struct TweetDeleted: Encodable {
    var tweet_id: String
    var isdeleted = 1
    var tweet = WSUVState.deletedText
}
