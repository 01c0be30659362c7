/// The JSON shapes of the cse118 API (docs/apis/cse118.md#endpoints), keys in declaration order.
enum CSE118Shape {
    /// `channels` is the live number of channels in the workspace.
    struct Workspace: Encodable {
        var id: String
        var name: String
        var owner: String
        var channels: Int
    }

    /// `messages` is the live number of messages in the channel.
    struct Channel: Encodable {
        var id: String
        var name: String
        var messages: Int
    }

    /// `member` is the poster's bare id.
    struct Message: Encodable {
        var id: String
        var member: String
        var posted: String
        var content: String
    }

    /// Never the email, password or role.
    struct Member: Encodable {
        var id: String
        var name: String
    }
}
