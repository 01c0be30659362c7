import Foundation
import MockHTTP
import MockKit
import MockSupport

/// A stub that matched a request, with the path parameters and decoded query it answers from.
struct StubMatch {
    let stub: Stub
    let path: [String: String]
    let query: [(name: String, value: String)]

    /// The stub's answer, held back by its delay.
    func answer() -> Response {
        var response = stub.answer(path: path, query: query)
        response.delay = stub.delay
        return response
    }
}

/// The stubs in force, matched before every course API: those added through `PUT /_mock/stubs`
/// first, in the order they came, then the stubs folder's, by file name and order in the file.
/// The first stub that matches answers.
public final class StubSet: Sendable {
    /// The name stubs go by in the journal, the faults and `/_mock/reset/stubs`.
    public static let name = "stubs"

    private let reader: StubReader
    private let state: Locked<(added: [Stub], folder: [Stub])>

    /// The folder's stubs; a problem in any file is reported with its file:line:column.
    public static func load(folder: URL?, apis: [any MockAPI]) throws(FileProblem) -> StubSet {
        let reader = StubReader(folder: folder, courseRoutes: apis.map(\.routes))
        return StubSet(reader: reader, folder: try reader.folderStubs())
    }

    /// No folder: only stubs added at run time.
    public convenience init(apis: [any MockAPI]) {
        self.init(reader: StubReader(folder: nil, courseRoutes: apis.map(\.routes)), folder: [])
    }

    private init(reader: StubReader, folder: [Stub]) {
        self.reader = reader
        state = Locked((added: [], folder: folder))
    }

    public var folder: URL? { reader.folder }

    var all: [Stub] { state.withLock { $0.added + $0.folder } }

    public var count: Int { state.withLock { $0.added.count + $0.folder.count } }

    /// The stub that answers this request.
    func match(_ request: Request) -> StubMatch? {
        let stubs = all
        guard !stubs.isEmpty else { return nil }
        let query = FormDecoding.pairs(Array((request.query ?? "").utf8), malformed: .keepLiteral)
        for stub in stubs {
            if let path = stub.match(request, query: query) { return StubMatch(stub: stub, path: path, query: query) }
        }
        return nil
    }

    /// The methods stubs answer on this path, for a browser's CORS preflight (`OPTIONS`); empty
    /// when no stub has the path.
    func methods(forPath path: String) -> Methods {
        all.filter { $0.route.path.match(path) != nil }
            .reduce(Methods()) { $0.union($1.route.method.map(Methods.init(named:)) ?? .any) }
    }

    /// Adds the stubs of a `PUT /_mock/stubs` document; on an error none is added.
    func add(_ document: JSONValue) throws(SeedError) -> [Stub] {
        let added = try reader.stubs(document) { "PUT /_mock/stubs \($0)" }
        state.withLock { $0.added += added }
        return added
    }

    /// Back to the folder's stubs (reset).
    func removeAdded() {
        state.withLock { $0.added = [] }
    }

    /// Reads the folder again; on a problem the stubs in force stay (`--watch`).
    public func reloadFolder() throws(FileProblem) {
        let stubs = try reader.folderStubs()
        state.withLock { $0.folder = stubs }
    }

    /// An injected error: stubs have no format of their own, so a small JSON body says what it is.
    static func injectedFault(status: Int) -> Response {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        writer.key("error"); writer.string("injected_fault")
        writer.key("status"); writer.int(status)
        writer.endObject()
        return .json(status, writer.bytes)
    }

    /// `GET /_mock/stubs`: each stub's place, route, conditions, status and the routes it overrides.
    static func json(_ stubs: [Stub]) -> [UInt8] {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginArray()
        for stub in stubs {
            writer.beginObject()
            writer.key("source"); writer.string(stub.source)
            writer.key("method"); writer.string(stub.route.method ?? "*")
            writer.key("path"); writer.string(stub.route.path.text)
            if !stub.query.isEmpty { writer.key("query"); writePairs(stub.query, to: &writer) }
            if !stub.headers.isEmpty { writer.key("headers"); writePairs(stub.headers, to: &writer) }
            if let contains = stub.bodyContains { writer.key("body_contains"); writer.string(String(decoding: contains.pattern, as: UTF8.self)) }
            writer.key("status"); writer.int(stub.status)
            writer.key("overrides"); writer.beginArray(); for route in stub.overrides { writer.string(route) }; writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        return writer.bytes
    }

    private static func writePairs(_ pairs: [(name: String, value: String)], to writer: inout JSONWriter) {
        writer.beginObject()
        for (name, value) in pairs { writer.key(name); writer.string(value) }
        writer.endObject()
    }

    /// `/_mock/openapi/stubs.json`: one operation per stub route, its statuses as answers.
    var openAPIDocument: [UInt8] {
        var builder = OpenAPIBuilder(title: "Stubs",
                                     description: "Answers from the stubs folder and PUT /_mock/stubs, matched before every course API.",
                                     security: nil)
        for stub in all {
            let methods = stub.route.method.map { [$0] } ?? ["GET", "POST", "PUT", "PATCH", "DELETE"]
            let summary = "\(stub.source)" + (stub.overrides.isEmpty ? "" : " (overrides \(stub.overrides.joined(separator: ", ")))")
            let query = stub.query.map { (name: $0.name, required: true) }
            if let index = builder.operations.firstIndex(where: { $0.path == stub.route.path.text && $0.methods == methods }) {
                if !builder.operations[index].responses.contains(where: { $0.status == stub.status }) {
                    builder.operations[index].responses.append((stub.status, Response.standardReason(stub.status), "{}"))
                }
                continue
            }
            builder.operations.append(OpenAPIBuilder.Operation(
                methods: methods, path: stub.route.path.text, summary: summary, query: query,
                responses: [(stub.status, stub.reason ?? Response.standardReason(stub.status), "{}")], secured: false))
        }
        return builder.build()
    }
}
