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

    private static let requestFields = ["method", "path", "query", "headers", "body_contains"]
    private static let responseFields = ["status", "reason", "headers", "body", "body_file", "delay_ms"]

    private func stub(_ node: SeedNode, source: String) throws(SeedError) -> Stub {
        let top = try node.object()
        try Self.known(top, ["request", "response"])
        let request = try top.object("request")
        try Self.known(request, Self.requestFields)
        let methodNode = try request.node("method")
        let method = try methodNode.string()
        let pathNode = try request.node("path")
        guard let route = RoutePattern("\(method) \(try pathNode.string())") else {
            if method.isEmpty || method.contains(" ") { throw methodNode.fail("expected a method such as GET, or *") }
            throw pathNode.fail("expected a path starting with /, with {name} for a parameter")
        }
        let response = try top.object("response")
        try Self.known(response, Self.responseFields)
        let statusNode = try response.node("status")
        let status = try statusNode.int()
        guard (100...599).contains(status) else { throw statusNode.fail("expected an HTTP status from 100 to 599") }
        var stub = Stub(source: source, route: route, status: status, body: .text(Template("")))
        stub.query = try Self.pairs(request.optionalNode("query"))
        stub.headers = try Self.pairs(request.optionalNode("headers"))
        if let contains = request.optionalNode("body_contains") { stub.bodyContains = ByteSearch(try contains.string()) }
        if let reasonNode = response.optionalNode("reason") {
            let reason = try reasonNode.string()
            if reason.utf8.contains(where: Template.isControl) { throw reasonNode.fail(Self.controlProblem) }
            stub.reason = reason
        }
        stub.answerHeaders = try Self.headerFields(response.optionalNode("headers")).map { ($0.name, Template($0.value)) }
        if let bodyNode = response.optionalNode("body") {
            if response.optionalNode("body_file") != nil { throw bodyNode.fail("give body or body_file, not both") }
            stub.body = bodyNode.value.stringValue.map { .text(Template($0)) } ?? .json(bodyNode.value)
        } else if let fileNode = response.optionalNode("body_file") {
            stub.body = try body(fromFile: fileNode)
        }
        if let delayNode = response.optionalNode("delay_ms") {
            guard let delay = delayNode.value.doubleValue, (0...600_000).contains(delay) else {
                throw delayNode.fail("expected milliseconds from 0 to 600000")
            }
            stub.delay = delay / 1000
        }
        let parameters = route.path.parameterNames
        for name in Self.templates(of: stub).flatMap(\.pathNames) where !parameters.contains(name) {
            throw SeedError(path: "\(response.path)", problem: "{{path.\(name)}}: the path \(route.path.text) has no {\(name)}")
        }
        stub.overrides = overriddenRoutes(route)
        return stub
    }

    private static func templates(of stub: Stub) -> [Template] {
        var templates = stub.answerHeaders.map(\.value)
        switch stub.body {
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
    private func body(fromFile node: SeedNode) throws(SeedError) -> Stub.Body {
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

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

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
    private func overriddenRoutes(_ stub: RoutePattern) -> [String] {
        var found: [String] = []
        for group in courseRoutes {
            for route in group.routes {
                let methods = stub.method.map { route.methods == .any || !route.methods.isDisjoint(with: Methods(named: $0)) } ?? true
                guard methods, let pattern = PathPattern(route.pattern),
                      stub.path.overlaps(pattern, caseInsensitive: group.matching.caseInsensitive) else { continue }
                found.append("\(group.name) \(stub.method ?? route.methods.headerValue) \(route.pattern)")
            }
        }
        return found
    }
}
