import Foundation
import MockHTTP
import MockKit
import Threads
import InternProducts
import WSUVTwitter
import CSE118
import OTP

/// Every API the server knows, each registered once, in the order of `/_mock/health`: `--only`,
/// the usage text, start-up and the tests that go through every API all read this list.
public enum APICatalog {
    public static let entries: [APIEntry] = [
        APIEntry(ThreadsAPI.self, title: "UNC Charlotte message threads", paths: "/api/login, /api/threads, …"),
        APIEntry(InternProductsAPI.self, title: "Endava School of iOS", paths: "/login, /register, /products"),
        APIEntry(WSUVTwitterAPI.self, title: "WSU Vancouver CS 458 Twitter", paths: "/cgi-bin/get-tweets.cgi, …"),
        APIEntry(CSE118API.self, title: "UC Santa Cruz CSE 118", paths: "/api/v2/…"),
        APIEntry(OTPAPI.self, title: "UC Davis ECS 189E one-time codes", paths: "/api/send_verification_code, …"),
    ]

    public static var names: [String] { entries.map(\.name) }

    /// The route tables of the APIs `only` leaves out, for the 404's hint (never asked to answer):
    /// each from the API made around an empty state, so no seed file of an API not served is read
    /// (it may be large or broken).
    public static func routesLeftOut(by only: [String], seed: SeedDirectory, options: APIOptions) -> [RouteGroup] {
        let context = SeedContext(folder: seed, options: options)
        return entries.filter { !only.contains($0.name) }.map { $0.routesWithoutState(context) }
    }

    /// The APIs to serve (all, or those of `--only`), each filled from its seed file.
    public static func load(_ only: [String]? = nil, seed: SeedDirectory, options: APIOptions) throws(FileProblem) -> [any MockAPI] {
        let wanted = entries.filter { only?.contains($0.name) ?? true }
        // Each API reads its own seed file, so they load side by side on every core, the largest
        // file first (so no core is left with a big one at the end); the first error in catalog
        // order is the one reported, as if they had loaded one after another.
        let sizes = wanted.map { seed.fileSize("\($0.name).json") }
        let largestFirst = wanted.indices.sorted { sizes[$0] > sizes[$1] }
        let results = Locked([Result<any MockAPI, FileProblem>?](repeating: nil, count: wanted.count))
        DispatchQueue.concurrentPerform(iterations: wanted.count) { turn in
            let index = largestFirst[turn]
            let result = Result { () throws(FileProblem) in try wanted[index].load(seed: seed, options: options) }
            results.withLock { $0[index] = result }
        }
        return try results.withLock { $0 }.map { result throws(FileProblem) in try result!.get() }
    }
}

public struct APIEntry: Sendable {
    public let name: String
    /// The course in a few words, for the usage text.
    public let title: String
    /// Its main paths in a few words, for the usage text.
    public let paths: String
    private let make: @Sendable (SeedDirectory, APIOptions) throws(SeedError) -> any MockAPI
    /// The API's route table, its seed left unread (`routesLeftOut`).
    let routesWithoutState: @Sendable (SeedContext) -> RouteGroup

    public init<API: CourseAPI>(_ type: API.Type, title: String, paths: String) where API.Seed: StoredState {
        name = API.name
        self.title = title
        self.paths = paths
        make = { seed, options throws(SeedError) in try API(seed: seed, options: options) }
        routesWithoutState = { context in API(seed: API.Seed(), context: context).routes }
    }

    /// The API filled from its seed; an error in the seed names the place in the file
    /// (`Seed/threads.json:4:18: $.users[0].email: expected a string`).
    public func load(seed: SeedDirectory, options: APIOptions) throws(FileProblem) -> any MockAPI {
        do {
            return try make(seed, options)
        } catch {
            throw FileProblem(locating: error, in: seed.url.appendingPathComponent("\(name).json"))
        }
    }
}
