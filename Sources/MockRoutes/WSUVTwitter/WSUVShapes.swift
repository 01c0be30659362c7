/// The JSON answers of the five scripts (docs/apis/wsuv-twitter.md#endpoints), keys in declaration order.

struct TweetShape: Encodable {
    var tweetID: Int
    var username: String
    var timeStamp: String
    var tweet: String
    var isDeleted: Int

    enum CodingKeys: String, CodingKey {
        case tweetID = "tweet_id", username, timeStamp = "time_stamp", tweet, isDeleted = "isdeleted"
    }
}

/// `get-tweets.cgi`: `{"tweets":[…]}`.
struct TweetList: Encodable {
    var tweets: [TweetShape]
}

/// `del-tweet.cgi`: the id echoed as the string that was sent (`"008"`).
struct TweetDeleted: Encodable {
    var tweetID: String
    var isDeleted = 1
    var tweet = WSUVState.deletedText

    enum CodingKeys: String, CodingKey {
        case tweetID = "tweet_id", isDeleted = "isdeleted", tweet
    }
}
