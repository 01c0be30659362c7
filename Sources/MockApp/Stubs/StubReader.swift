import Foundation
import MockHTTP
import MockKit
import MockSupport

/// Reads stubs from their JSON form (docs/admin.md#stubs): one stub object, or an array of them.
struct StubReader {
    /// Where `body_file` names are looked up; nil when there is no stubs folder.
    var folder: URL?
    /// The course route tables, to mark the stubs that override one of their routes.
    var courseRoutes: [RouteGroup]

    /// Every stub of a document; `source` names where each came from (given its JSONPath).
    func stubs(_ document: JSONValue, source: (String) -> String) throws(SeedError) -> [Stub] {
        let root = SeedNode(document)
        let nodes = document.arrayValue != nil ? try root.array() : [root]
        var stubs: [Stub] = []
        for node in nodes { stubs.append(try stub(node, source: source(node.path))) }
        return stubs
    }

    /// Every `*.json` file of the folder, by name; a problem stops at the first file that has one.
    func folderStubs() throws(FileProblem) -> [Stub] {
        guard let folder else { return [] }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
        var stubs: [Stub] = []
        for name in names {
            let url = folder.appendingPathComponent(name)
            let (document, bytes) = try FileProblem.readJSON(url)
            do {
                stubs += try self.stubs(document) { path in
                    SourceLocation(file: url.path, path: path, in: bytes).description
                }
            } catch {
                throw FileProblem(error, in: bytes, file: url.path)
            }
        }
        return stubs
    }

    private static let requestFields = ["method", "path", "path_regex", "query", "headers", "body_contains", "body_json"]
    private static let responseFields = ["status", "reason", "headers", "body", "body_file", "delay_ms"]
    /// A sequence longer than this is a mistake rather than an exercise.
    static let maxResponses = 100

    private func stub(_ node: SeedNode, source: String) throws(SeedError) -> Stub {
        let top = try node.object()
        try Self.known(top, ["request", "response", "responses", "then"])
        let request = try top.object("request")
        try Self.known(request, Self.requestFields)
        let route = try Self.route(request)
        var stub = Stub(source: source, route: route, answers: try answers(top))
        stub.query = try Self.pairs(request.optionalNode("query"))
        stub.headers = try Self.pairs(request.optionalNode("headers"))
        if let contains = request.optionalNode("body_contains") { stub.bodyContains = ByteSearch(try contains.string()) }
        if let json = request.optionalNode("body_json") {
            let object = try json.object().members
            guard !object.members.isEmpty else {
                throw json.fail("expected the members the JSON body must have, such as {\"username\":\"alice\"}")
            }
            stub.bodyJSON = object
        }
        if let then = top.optionalNode("then") {
            guard top.optionalNode("responses") != nil else { throw then.fail("then goes with responses, a sequence of answers") }
            switch try then.string() {
            case "last": break
            case "repeat": stub.cycles = true
            default: throw then.fail("expected \"last\" (the last answer again, the default) or \"repeat\" (from the first again)")
            }
        }
        let parameters = route.path.parameterNames
        for (index, answer) in stub.answers.enumerated() {
            for name in Self.templates(of: answer).flatMap(\.pathNames) where !parameters.contains(name) {
                let place = top.optionalNode("responses") == nil ? "\(top.path).response" : "\(top.path).responses[\(index)]"
                throw SeedError(path: place, problem: "{{path.\(name)}}: " + Self.lacks(route.path, name))
            }
        }
        if case let .segments(pattern) = route.path { stub.overrides = overriddenRoutes(method: route.method, pattern) }
        return stub
    }

    private static func lacks(_ path: StubPath, _ name: String) -> String {
        switch path {
        case let .segments(pattern): return "the path \(pattern.text) has no {\(name)}"
        case let .expression(expression): return "the path_regex has \(expression.groupCount) capture groups ({{path.1}} for the first)"
        }
    }

    /// `method` and one of `path` and `path_regex`.
    private static func route(_ request: SeedObject) throws(SeedError) -> RoutePattern {
        let methodNode = try request.node("method")
        let method = try methodNode.string()
        if method.isEmpty || method.contains(" ") { throw methodNode.fail("expected a method such as GET, or *") }
        let routeMethod = method == "*" ? nil : method.uppercased()
        switch (request.optionalNode("path"), request.optionalNode("path_regex")) {
        case let (path?, nil):
            let text = try path.string()
            guard !text.contains(" "), text.hasPrefix("/") else {
                throw path.fail("expected a path starting with /, with {name} for a parameter")
            }
            return RoutePattern(method: routeMethod, path: .segments(PathTemplate(text)))
        case let (nil, regex?):
            return RoutePattern(method: routeMethod, path: .expression(try PathExpression(regex)))
        case (_?, _?):
            throw SeedError(path: request.path, problem: "give path or path_regex, not both")
        case (nil, nil):
            throw SeedError(path: request.path, problem: "expected path (with {name} for a parameter) or path_regex")
        }
    }

    /// `response`, or `responses`: the answers given in turn.
    private func answers(_ top: SeedObject) throws(SeedError) -> [StubAnswer] {
        switch (top.optionalNode("response"), top.optionalNode("responses")) {
        case let (single?, nil):
            return [try answer(single)]
        case let (nil, sequence?):
            let nodes = try sequence.array()
            guard (1...Self.maxResponses).contains(nodes.count) else {
                throw sequence.fail("expected from 1 to \(Self.maxResponses) answers, given in turn")
            }
            var answers: [StubAnswer] = []
            for node in nodes { answers.append(try answer(node)) }
            return answers
        case (_?, _?):
            throw SeedError(path: top.path, problem: "give response or responses (answers in turn), not both")
        case (nil, nil):
            throw SeedError(path: top.path, problem: "expected response, or responses (answers in turn)")
        }
    }

    private func answer(_ node: SeedNode) throws(SeedError) -> StubAnswer {
        let response = try node.object()
        try Self.known(response, Self.responseFields)
        let statusNode = try response.node("status")
        let status = try statusNode.int()
        guard (100...599).contains(status) else { throw statusNode.fail("expected an HTTP status from 100 to 599") }
        var answer = StubAnswer(status: status)
        if let reasonNode = response.optionalNode("reason") {
            let reason = try reasonNode.string()
            if reason.utf8.contains(where: Template.isControl) { throw reasonNode.fail(Self.controlProblem) }
            answer.reason = reason
        }
        answer.headers = try Self.headerFields(response.optionalNode("headers")).map { ($0.name, Template($0.value)) }
        if let bodyNode = response.optionalNode("body") {
            if response.optionalNode("body_file") != nil { throw bodyNode.fail("give body or body_file, not both") }
            answer.body = bodyNode.value.stringValue.map { .text(Template($0)) } ?? .json(bodyNode.value)
        } else if let fileNode = response.optionalNode("body_file") {
            answer.body = try body(fromFile: fileNode)
        }
        if let delayNode = response.optionalNode("delay_ms") {
            guard let delay = delayNode.value.doubleValue, (0...600_000).contains(delay) else {
                throw delayNode.fail("expected milliseconds from 0 to 600000")
            }
            answer.delay = delay / 1000
        }
        return answer
    }

    private static func templates(of answer: StubAnswer) -> [Template] {
        var templates = answer.headers.map(\.value)
        switch answer.body {
        case let .text(template): templates.append(template)
        case let .json(value): templates += strings(in: value).map(Template.init)
        case .bytes: break
        }
        return templates
    }

    private static func strings(in value: JSONValue) -> [String] {
        switch value {
        case let .string(text): return [text]
        case let .array(items): return items.flatMap(strings)
        case let .object(object): return object.members.flatMap { strings(in: $0.value) }
        default: return []
        }
    }

    /// A file in the stubs folder (no way out of it), as text when it is UTF-8.
    private func body(fromFile node: SeedNode) throws(SeedError) -> StubAnswer.Body {
        let name = try node.string()
        guard let folder else { throw node.fail("body_file needs a stubs folder (Seed/stubs or --stubs DIR)") }
        guard !name.hasPrefix("/"), !name.split(separator: "/").contains("..") else {
            throw node.fail("body_file must be a file inside the stubs folder")
        }
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
            throw node.fail("cannot read \(name) in \(folder.path)")
        }
        guard let text = String(validUTF8: Array(data)) else { return .bytes(Array(data)) }
        var template = Template(text)
        template.isJSONFile = name.hasSuffix(".json")
        return .text(template)
    }

    private static func known(_ object: SeedObject, _ fields: [String]) throws(SeedError) {
        for key in object.members.keys where !fields.contains(key) {
            throw SeedError(path: "\(object.path).\(key)", problem: "unknown field (known: \(fields.joined(separator: ", ")))")
        }
    }

    /// An answer's header fields: names that are HTTP tokens, values without line breaks or other
    /// controls (the head of the answer is written as they are).
    private static func headerFields(_ node: SeedNode?) throws(SeedError) -> [(name: String, value: String)] {
        let fields = try pairs(node)
        guard let node else { return fields }
        for (name, value) in fields {
            if name.isEmpty || !name.utf8.allSatisfy(isTokenByte) {
                throw SeedError(path: node.path, problem: "`\(name)` is not a header name (letters, digits and !#$%&'*+-.^_`|~)")
            }
            if value.utf8.contains(where: Template.isControl) { throw SeedError(path: node.path + "." + name, problem: controlProblem) }
        }
        return fields
    }

    private static let controlProblem = "holds a line break or another control character, which would end the header line"

    /// `{"name":"value",…}`: conditions or headers.
    private static func pairs(_ node: SeedNode?) throws(SeedError) -> [(name: String, value: String)] {
        guard let node else { return [] }
        let object = try node.object()
        var pairs: [(name: String, value: String)] = []
        for key in object.members.keys { pairs.append((key, try object.string(key))) }
        return pairs
    }

    /// The course routes a stub's route overlaps: same number of segments, each pair equal or
    /// one of them a parameter, and a method in common.
    /// (A `path_regex` is not compared with routes: no test says which paths two patterns share.)
    private func overriddenRoutes(method: String?, _ path: PathTemplate) -> [String] {
        var found: [String] = []
        for group in courseRoutes {
            for route in group.routes {
                let methods = method.map { route.methods == .any || !route.methods.isDisjoint(with: Methods(named: $0)) } ?? true
                guard methods, path.overlaps(route.path, ignoringCase: group.matching.caseInsensitive) else { continue }
                found.append("\(group.name) \(method ?? route.methods.headerValue) \(route.pattern)")
            }
        }
        return found
    }
}
