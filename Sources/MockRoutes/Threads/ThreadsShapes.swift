/// The JSON shapes of the threads API (docs/apis/threads.md#endpoints), keys in declaration order.

struct Creator: Encodable {
    var fname: String
    var lname: String
    var userID: Int

    enum CodingKeys: String, CodingKey {
        case fname, lname
        case userID = "user_id"
    }
}

struct ThreadShape: Encodable {
    var createdBy: Creator
    var threadID: Int
    var title: String
    var createdAt: String

    enum CodingKeys: String, CodingKey {
        case createdBy = "created_by", threadID = "thread_id", title, createdAt = "created_at"
    }
}

struct MessageShape: Encodable {
    var createdBy: Creator
    var messageID: Int
    var message: String
    var createdAt: String

    enum CodingKeys: String, CodingKey {
        case createdBy = "created_by", messageID = "message_id", message, createdAt = "created_at"
    }
}

/// The flat 2017–2018 shape of a thread (`title`) or a message (`message`), served to legacy sessions.
struct LegacyShape: Encodable {
    enum Text {
        case title(String), message(String)
    }

    var id: Int
    var creator: Creator
    var text: Text
    var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id, userID = "user_id", userFname = "user_fname", userLname = "user_lname", title, message
        case createdAt = "created_at"
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(creator.userID, forKey: .userID)
        try container.encode(creator.fname, forKey: .userFname)
        try container.encode(creator.lname, forKey: .userLname)
        switch text {
        case let .title(title): try container.encode(title, forKey: .title)
        case let .message(message): try container.encode(message, forKey: .message)
        }
        try container.encode(createdAt, forKey: .createdAt)
    }
}

struct AuthAnswer: Encodable {
    var status = "ok"
    var token: String
    var userID: Int
    var userEmail: String
    var userFname: String
    var userLname: String
    var userRole: String

    enum CodingKeys: String, CodingKey {
        case status, token, userID = "user_id", userEmail = "user_email", userFname = "user_fname"
        case userLname = "user_lname", userRole = "user_role"
    }
}

/// The envelopes are generic over the shape: `ThreadShape`/`MessageShape`, or `LegacyShape` for a
/// 2017–2018 session.
struct ThreadList<Shape: Encodable>: Encodable {
    var status = "ok"
    var threads: [Shape]
}

struct ThreadAdded<Shape: Encodable>: Encodable {
    var status = "ok"
    var thread: Shape
}

struct MessageList<Shape: Encodable>: Encodable {
    var status = "ok"
    var messages: [Shape]
}

struct MessageAdded<Shape: Encodable>: Encodable {
    var status = "ok"
    var message: Shape
}
