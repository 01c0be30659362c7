import Foundation

/// What both anchor servers serve, read from the same `Seed/` folder as mock-backend, the way an
/// ordinary Codable app would: decode the seed at start, encode the threads list per request, and
/// encode the (large, read-only) products answer once.
public struct AnchorData: Sendable {
    public let port: Int
    /// Bearer tokens of the threads API → user id (run.sh logs in to mock-backend and passes the
    /// same token, so every server gets byte-identical requests).
    public let threadTokens: [String: Int]
    public let productTokens: Set<String>
    public let users: [Int: SeedUser]
    public let threads: [SeedThread]
    /// `{"status":"SUCCESS","products":[…]}`, images inlined as base64.
    public let productsBody: Data
    public let started = Date()

    public init(arguments: [String] = CommandLine.arguments) throws {
        var values: [String: String] = [:]
        var index = 1
        while index + 1 < arguments.count {
            values[arguments[index]] = arguments[index + 1]
            index += 2
        }
        guard let seed = values["--seed"], let port = values["--port"].flatMap(Int.init), let token = values["--token"] else {
            throw UsageError(text: "usage: \(arguments.first ?? "anchor") --port N --seed DIR --token BEARER_TOKEN")
        }
        self.port = port
        let folder = URL(fileURLWithPath: seed)
        let threadsSeed = try JSONDecoder().decode(ThreadsSeed.self, from: Data(contentsOf: folder.appendingPathComponent("threads.json")))
        users = Dictionary(uniqueKeysWithValues: threadsSeed.users.map { ($0.userID, $0) })
        threads = threadsSeed.threads.sorted { $0.threadID < $1.threadID }
        threadTokens = [token: threadsSeed.users[0].userID]

        let productsSeed = try JSONDecoder().decode(ProductsSeed.self, from: Data(contentsOf: folder.appendingPathComponent("internproducts.json")))
        productTokens = Set(productsSeed.users.map(\.loginToken))
        let products = try productsSeed.products.sorted { $0.date > $1.date }.map { product in
            let image = product.image.hasSuffix(".png")
                ? try Data(contentsOf: folder.appendingPathComponent("internproducts").appendingPathComponent(product.image)).base64EncodedString()
                : product.image
            return ProductShape(tags: product.tags, title: product.title, image: image, description: product.description, date: product.date)
        }
        productsBody = try JSONEncoder().encode(ProductList(products: products))
    }

    /// The user a `Bearer` header belongs to, or nil (→ 401).
    public func user(authorization: String?) -> Int? {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else { return nil }
        return threadTokens[String(authorization.dropFirst(7))]
    }

    /// The threads list, built from the current data on every call.
    public func threadList() -> ThreadList {
        ThreadList(threads: threads.map { thread in
            let creator = users[thread.userID]
            return ThreadShape(createdBy: Creator(fname: creator?.fname ?? "", lname: creator?.lname ?? "", userID: thread.userID),
                               threadID: thread.threadID, title: thread.title, createdAt: thread.createdAt)
        })
    }

    public func health() -> Health {
        Health(uptimeS: (Date().timeIntervalSince(started) * 10).rounded() / 10)
    }
}

public struct UsageError: Error, CustomStringConvertible {
    public var text: String
    public var description: String { text }
}

// MARK: Seed files

struct ThreadsSeed: Decodable {
    var users: [SeedUser]
    var threads: [SeedThread]
}

public struct SeedUser: Decodable, Sendable {
    var userID: Int
    var fname: String
    var lname: String
    enum CodingKeys: String, CodingKey { case userID = "user_id", fname, lname }
}

public struct SeedThread: Decodable, Sendable {
    var threadID: Int
    var userID: Int
    var title: String
    var createdAt: String
    enum CodingKeys: String, CodingKey { case threadID = "thread_id", userID = "user_id", title, createdAt = "created_at" }
}

struct ProductsSeed: Decodable {
    struct User: Decodable { var loginToken: String }
    struct Product: Decodable {
        var title: String
        var description: String
        var tags: [String]
        var date: Int
        var image: String
    }
    var users: [User]
    var products: [Product]
}

// MARK: Answers (the same fields as mock-backend's)

public struct Creator: Codable, Sendable {
    var fname: String
    var lname: String
    var userID: Int
    enum CodingKeys: String, CodingKey { case fname, lname, userID = "user_id" }
}

public struct ThreadShape: Codable, Sendable {
    var createdBy: Creator
    var threadID: Int
    var title: String
    var createdAt: String
    enum CodingKeys: String, CodingKey { case createdBy = "created_by", threadID = "thread_id", title, createdAt = "created_at" }
}

public struct ThreadList: Codable, Sendable {
    public var status = "ok"
    public var threads: [ThreadShape]
}

public struct Health: Codable, Sendable {
    public var status = "ok"
    public var version = "anchor"
    public var uptimeS: Double
    public var apis = ["threads", "internproducts", "wsuv", "cse118", "otp"]
    enum CodingKeys: String, CodingKey { case status, version, uptimeS = "uptime_s", apis }
}

struct ProductShape: Codable {
    var tags: [String]
    var title: String
    var image: String
    var description: String
    var date: Int
}

struct ProductList: Codable {
    var status = "SUCCESS"
    var products: [ProductShape]
}
