import MockHTTP
import MockKit

/// The smallest API the kit carries (docs/adding-an-api.md): notes to list and add, seeded from `example.json`.
final class ExampleAPI: CourseAPI {
    typealias Failure = ExampleError
    static let name = "example"
    let state = SeededStore<[String], [String]>([])
    let summary = APISummary(title: "Example notes", basePaths: ["/notes"])

    init(seed: SeedDirectory, options: APIOptions) throws(SeedError) { try loadState(Self.seedDocument(in: seed)) }
    func seed(from document: JSONValue) throws(SeedError) -> [String] {
        try SeedNode(document).object().array("notes").map { node throws(SeedError) in try node.string() }
    }
    func stateDocument(of notes: [String]) -> any Encodable { ["notes": notes] }

    var routes: RouteGroup {
        routeGroup([
            Route(.get, "/notes") { _ in Self.json(self.state.read { notes, _ in notes }) },
            Route(.post, "/notes", endpoint { request throws(ExampleError) in
                guard !request.body.isEmpty else { throw .emptyNote }
                return Self.json(self.state.withLock { $0.append(String(decoding: request.body, as: UTF8.self)); return $0 }, status: 201)
            }),
        ])
    }

    let openAPIDocument: [UInt8]? = OpenAPIBuilder(title: "Example notes", description: "The kit's example.", security: nil, operations: [
        .init(methods: ["GET"], path: "/notes", summary: "Every note", responses: [(200, "The notes", nil)]),
        .init(methods: ["POST"], path: "/notes", summary: "Add the body as a note", responses: [(201, "The notes", nil), (400, "No body", nil)]),
    ]).build()
}

enum ExampleError: HTTPStatusError {
    case emptyNote, methodNotAllowed, serviceUnavailable
    var status: Int { self == .emptyNote ? 400 : self == .methodNotAllowed ? 405 : 503 }
    func response(status: Int) -> Response { .json(status, ["error": "\(self)"]) }
    func explanation(for request: Request) -> String { "\(self)" }
    static func methodNotAllowed(_ request: Request) -> Response { methodNotAllowed.response }
}
