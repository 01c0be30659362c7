import MockHTTP
import MockKit

/// The smallest API the kit carries (docs/adding-an-api.md): notes to list and add, seeded from `example.json`.
final class ExampleAPI: CourseAPI {
    typealias Failure = ExampleError
    static let name = "example"
    let state: SeededStore<Notes, Notes>
    let summary = APISummary(title: "Example notes", basePaths: ["/notes"])

    let context: SeedContext

    init(seed: Notes, context: SeedContext) {
        state = SeededStore(seed)
        self.context = context
    }

    static func seed(from document: SeedJSON, in context: SeedContext) throws(SeedError) -> Notes { try Notes(document) }
    static func tableCounts(of notes: Notes) -> TableCounts { TableCounts(["notes": notes.list.count]) }
    func stateJSON(of notes: Notes) -> [UInt8] { OrderedJSON.encode(["notes": notes.list], escapeSlash: false) }

    var routes: RouteGroup {
        routeGroup([
            Route(.get, "/notes") { _ in Self.json(self.state.read { notes, _ in notes.list }) },
            Route(.post, "/notes", endpoint { request throws(ExampleError) in
                guard !request.body.isEmpty else { throw .emptyNote }
                return Self.json(self.state.withLock { $0.add(String(decoding: request.body, as: UTF8.self)) }, status: 201)
            }),
        ])
    }

    let openAPIDocument: [UInt8]? = OpenAPIBuilder(title: "Example notes", description: "The kit's example.", security: nil, operations: [
        .init(methods: ["GET"], path: "/notes", summary: "Every note", responses: [(200, "The notes", nil)]),
        .init(methods: ["POST"], path: "/notes", summary: "Add the body as a note", responses: [(201, "The notes", nil), (400, "No body", nil)]),
    ]).build()
}

/// Small enough to go to the `--state` log whole after each change.
struct Notes: TouchedState, TokenCarrying {
    /// No logins, so nothing for a reload to keep.
    let liveTokenOwners: [(token: String, user: String)] = []
    func keepLiveToken(_ token: String, of user: String, from old: Notes) -> Bool { false }

    var list: [String], changes = StateChanges()
    private static let keys = SeedKeys(["notes"])
    init(_ seed: SeedJSON) throws(SeedError) {
        list = []
        try seed.read { root throws(SeedError) in
            try root.members(Self.keys) { _, notes throws(SeedError) in
                try notes.elements { note throws(SeedError) in list.append(try note.string()) }
            }
        }
    }
    mutating func add(_ note: String) -> [String] { list.append(note); changes.touchEverything(); return list }
    func seedRow(at path: RowPath) -> [UInt8]? { nil }
}

enum ExampleError: HTTPStatusError, MethodNotAllowedCase {
    case emptyNote, methodNotAllowed, serviceUnavailable
    var status: Int { self == .emptyNote ? 400 : self == .methodNotAllowed ? 405 : 503 }
    func response(status: Int) -> Response { .json(status, ["error": "\(self)"]) }
    func explanation(for request: Request) -> String { "\(self)" }
    static func bodyTooLarge(_ reason: String) -> Response { .json(413, ["error": reason]) }
}
