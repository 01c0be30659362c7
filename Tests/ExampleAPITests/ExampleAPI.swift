import MockHTTP
import MockKit

/// The smallest API the kit carries (docs/adding-an-api.md): notes to list and add, seeded from
/// `example.json` (`{"notes":[{"note_id":1,"text":"first note"}]}`).
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

    var routes: RouteGroup {
        routeGroup([
            Route(.get, "/notes") { _ in Self.json(self.state.read { notes, _ in notes.shapes }) },
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

/// The state: one table, read from and written to `example.json` by its format; each change
/// reaches the `--state` log by itself.
struct Notes: StoredState, TokenCarrying {
    /// No logins, so nothing for a reload to keep.
    var liveTokenOwners: [(token: String, user: String)] { [] }
    func keepLiveToken(_ token: String, of user: String, from old: Notes) -> Bool { false }

    struct Note: TableRow {
        var id: Int
        var text: String

        static let keyField = "note_id"
        var key: Int { id }

        init(id: Int, text: String) { (self.id, self.text) = (id, text) }

        init(seed row: SeedFields) throws(SeedError) {
            id = try row.int("note_id")
            text = try row.string("text")
        }

        func write(to seed: inout SeedFieldWriter) {
            seed.field("note_id", id)
            seed.field("text", text)
        }
    }

    var notes = Table<Note>()
    static let format = SeedFormat<Notes>(.table("notes", \.notes, order: { $0.id < $1.id }))

    /// What `GET /notes` answers.
    var shapes: [NoteShape] { notes.rows.map { NoteShape(noteID: $0.id, text: $0.text) } }

    mutating func add(_ text: String) -> [NoteShape] {
        notes.insert(Note(id: (notes.last?.id ?? 0) + 1, text: text))
        return shapes
    }
}

struct NoteShape: Encodable {
    var noteID: Int
    var text: String

    enum CodingKeys: String, CodingKey {
        case noteID = "note_id", text
    }
}

enum ExampleError: HTTPStatusError, MethodNotAllowedCase {
    case emptyNote, methodNotAllowed, serviceUnavailable
    var status: Int { self == .emptyNote ? 400 : self == .methodNotAllowed ? 405 : 503 }
    func response(status: Int) -> Response { .json(status, ["error": "\(self)"]) }
    func explanation(for request: Request) -> String { "\(self)" }
    static func bodyTooLarge(_ reason: String) -> Response { .json(413, ["error": reason]) }
}
