/// The JSON shapes of the threads API (contract §3), keys in declaration order.

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

/// The flat 2017–2018 thread, served only by `GET /api/thread`.
struct LegacyThreadShape: Encodable {
    var id: Int
    var userID: Int
    var userFname: String
    var userLname: String
    var title: String
    var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id, userID = "user_id", userFname = "user_fname", userLname = "user_lname", title, createdAt = "created_at"
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

/// The two cached list answers.
enum ThreadListKind {
    case current, legacy
}

struct ThreadList: Encodable {
    var status = "ok"
    var threads: [ThreadShape]
}

struct LegacyThreadList: Encodable {
    var status = "ok"
    var threads: [LegacyThreadShape]
}

struct ThreadAdded: Encodable {
    var status = "ok"
    var thread: ThreadShape
}

struct MessageList: Encodable {
    var status = "ok"
    var messages: [MessageShape]
}

struct MessageAdded: Encodable {
    var status = "ok"
    var message: MessageShape
}

/// The answer of both deletes: `{"status":"ok","message":"Thread deleted"}`.
struct Deleted: Encodable {
    var status = "ok"
    var message: String
}
