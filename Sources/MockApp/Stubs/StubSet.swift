import Foundation
import MockHTTP
import MockKit
import MockSupport

/// A stub that matched a request, with the path parameters and decoded query it answers from.
struct StubMatch {
    let stub: Stub
    let path: [String: String]
    let query: [(name: String, value: String)]
    /// Counts the answers of a sequence.
    let set: StubSet

    /// The stub's answer, held back by its delay; of a sequence, the next one, and the journal
    /// and console say which.
    func answer() -> Response {
        let index = set.takeAnswer(of: stub)
        var response = stub.answers[index].response(path: path, query: query)
        if stub.answers.count > 1 {
            response.explanation = "\(Self.sequenceNote) \(index + 1) of \(stub.answers.count) of \(stub.described)"
        }
        return response
    }

    /// How the reason of a sequence's answer starts; the index page's journal colours it by status only.
    static let sequenceNote = "stub answer"
}

/// The stubs in force, matched before every course API: those added through `PUT /_mock/stubs`
/// first, in the order they came, then the stubs folder's, by file name and order in the file.
/// The first stub that matches answers.
public final class StubSet: Sendable {
    /// The name stubs go by in the journal, the faults and `/_mock/reset/stubs`.
    public static let name = "stubs"

    private let reader: StubReader
    private let state: Locked<State>

    private struct State {
        var added: [Stub] = []
        var folder: [Stub] = []
        /// By stub id, for sequences only: how many answers the stub gave since the last reset (of
        /// a repeating one, modulo its length), so the count stays small.
        var given: [Int: Int] = [:]
        var lastID = 0

        mutating func numbered(_ stubs: [Stub]) -> [Stub] {
            stubs.map { stub in
                lastID += 1
                var numbered = stub
                numbered.id = lastID
                return numbered
            }
        }

        mutating func forget(_ stubs: [Stub]) {
            for stub in stubs { given[stub.id] = nil }
        }
    }

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
        var state = State()
        state.folder = state.numbered(folder)
        self.state = Locked(state)
    }

    public var folder: URL? { reader.folder }

    var all: [Stub] { state.withLock { $0.added + $0.folder } }

    public var count: Int { state.withLock { $0.added.count + $0.folder.count } }

    /// The first stub the request matches; the body is parsed as JSON when a stub first asks, once.
    func match(_ request: Request) -> StubMatch? {
        let stubs = all
        guard !stubs.isEmpty else { return nil }
        let query = FormDecoding.pairs(Array((request.query ?? "").utf8), malformed: .keepLiteral)
        let body = Self.lazyJSON(request.body)
        for stub in stubs {
            guard let path = stub.route.path.match(request.path),
                  stub.missedCondition(request, query: query, bodyJSON: body) == nil else { continue }
            return StubMatch(stub: stub, path: path, query: query, set: self)
        }
        return nil
    }

    /// The body read as JSON when first asked (nil when it is not JSON), at most once.
    static func lazyJSON(_ body: [UInt8]) -> () -> JSONValue? {
        var parsed: JSONValue??
        return {
            if parsed == nil { parsed = .some(try? JSONParser.parse(body, maxDepth: 64)) }
            return parsed ?? nil
        }
    }

    /// The place in its answers of the answer a stub gives now, counted under the lock so that
    /// requests arriving together each take their own turn. A stub removed meanwhile (reset,
    /// reload) answers its first and leaves no count behind.
    func takeAnswer(of stub: Stub) -> Int {
        guard stub.answers.count > 1 else { return 0 }
        return state.withLock { state in
            guard state.added.contains(where: { $0.id == stub.id }) || state.folder.contains(where: { $0.id == stub.id }) else { return 0 }
            let given = state.given[stub.id, default: 0]
            state.given[stub.id] = stub.cycles ? (given + 1) % stub.answers.count : min(given + 1, stub.answers.count)
            return stub.answerIndex(after: given)
        }
    }

    /// The methods stubs answer on this path, for a browser's CORS preflight (`OPTIONS`); empty
    /// when no stub has the path.
    func methods(forPath path: String) -> Methods {
        all.filter { $0.route.path.match(path) != nil }
            .reduce(Methods()) { $0.union($1.route.method.map(Methods.init(named:)) ?? .any) }
    }

    /// Adds the stubs of a `PUT /_mock/stubs` document; on an error none is added.
    func add(_ document: JSONValue) throws(SeedError) -> [Stub] {
        let read = try reader.stubs(document) { "PUT /_mock/stubs \($0)" }
        return state.withLock { state in
            let added = state.numbered(read)
            state.added += added
            return added
        }
    }

    func removeAdded() {
        state.withLock { state in
            state.forget(state.added)
            state.added = []
        }
    }

    /// Back to the folder's stubs, each sequence at its first answer again (`POST /_mock/reset`).
    func reset() {
        state.withLock { state in
            state.added = []
            state.given = [:]
        }
    }

    /// Reads the folder again; on a problem the stubs in force stay (`--watch`). Sequences of
    /// the folder start again.
    public func reloadFolder() throws(FileProblem) {
        let stubs = try reader.folderStubs()
        state.withLock { state in
            state.forget(state.folder)
            state.folder = state.numbered(stubs)
        }
    }

    /// An injected error: stubs have no format of their own, so a small JSON body says what it is.
    static func injectedFault(status: Int) -> Response {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        writer.member("error", "injected_fault")
        writer.member("status", status)
        writer.endObject()
        return .json(status, writer.bytes)
    }

    /// `GET /_mock/stubs`: each stub's place, route, conditions, status (of a sequence: statuses,
    /// what comes after the last, and the place of the next answer) and the routes it overrides.
    func json(_ stubs: [Stub]) -> [UInt8] {
        let given = state.withLock { $0.given }
        var writer = JSONWriter(escapeSlash: false)
        writer.beginArray()
        for stub in stubs {
            writer.beginObject()
            writer.member("source", stub.source)
            writer.member("method", stub.route.method ?? "*")
            switch stub.route.path {
            case let .segments(pattern): writer.member("path", pattern.text)
            case let .expression(expression): writer.member("path_regex", expression.pattern)
            }
            if !stub.query.isEmpty { writer.key("query"); Self.writePairs(stub.query, to: &writer) }
            if !stub.headers.isEmpty { writer.key("headers"); Self.writePairs(stub.headers, to: &writer) }
            if let contains = stub.bodyContains { writer.key("body_contains"); writer.string(String(decoding: contains.pattern, as: UTF8.self)) }
            if let bodyJSON = stub.bodyJSON { writer.key("body_json"); writer.value(.object(bodyJSON)) }
            if stub.answers.count == 1 {
                writer.member("status", stub.answers[0].status)
            } else {
                writer.key("statuses"); writer.beginArray(); for answer in stub.answers { writer.int(answer.status) }; writer.endArray()
                writer.member("then", stub.cycles ? "repeat" : "last")
                writer.member("next", stub.answerIndex(after: given[stub.id, default: 0]))
            }
            writer.member("overrides", stub.overrides)
            writer.endObject()
        }
        writer.endArray()
        return writer.bytes
    }

    private static func writePairs(_ pairs: [(name: String, value: String)], to writer: inout JSONWriter) {
        writer.object(pairs.map { ($0.name, $0.value) })
    }

    /// `/_mock/openapi/stubs.json`: one operation per stub route, its statuses as answers. An
    /// OpenAPI path cannot be a regular expression, so `path_regex` stubs are left out.
    var openAPIDocument: [UInt8] {
        var builder = OpenAPIBuilder(title: "Stubs",
                                     description: "Answers from the stubs folder and PUT /_mock/stubs, matched before every course API.",
                                     security: nil)
        for stub in all {
            guard case let .segments(path) = stub.route.path else { continue }
            let methods = stub.route.method.map { [$0] } ?? ["GET", "POST", "PUT", "PATCH", "DELETE"]
            let summary = "\(stub.source)" + (stub.overrides.isEmpty ? "" : " (overrides \(stub.overrides.joined(separator: ", ")))")
            let query = stub.query.map { (name: $0.name, required: true) }
            let index: Int
            if let same = builder.operations.firstIndex(where: { $0.path == path.text && $0.methods == methods }) {
                index = same
            } else {
                builder.operations.append(OpenAPIBuilder.Operation(methods: methods, path: path.text, summary: summary, query: query,
                                                                   responses: [], secured: false))
                index = builder.operations.count - 1
            }
            for answer in stub.answers where !builder.operations[index].responses.contains(where: { $0.status == answer.status }) {
                builder.operations[index].responses.append((answer.status, answer.reason ?? Response.standardReason(answer.status), "{}"))
            }
        }
        return builder.build()
    }
}
