/// The JSON answers of the five scripts (docs/apis/wsuv-twitter.md#endpoints), keys in declaration
/// order; `get-tweets.cgi` writes each tweet as its seed row (`WSUVState.Tweet.write(to:)`).

/// `del-tweet.cgi`: the id echoed as the string that was sent (`"008"`).
struct TweetDeleted: Encodable {
    var tweetID: String
    var isDeleted = 1
    var tweet = WSUVState.deletedText

    enum CodingKeys: String, CodingKey {
        case tweetID = "tweet_id", isDeleted = "isdeleted", tweet
    }
}
