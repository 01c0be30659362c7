import MockHTTP
import MockSupport

/// Builds an OpenAPI 3.1 document from operations and JSON-Schema fragments, so each API's
/// description reads like its route table instead of a page of nested JSON.
public struct OpenAPIBuilder {
    public struct Operation {
        public var methods: [String]
        public var path: String
        public var summary: String
        /// Request body schema (JSON text) and the media types it may arrive as.
        public var body: (schema: String, mediaTypes: [String])?
        public var query: [(name: String, required: Bool)] = []
        /// Status → (description, response schema as JSON text); a nil schema is an empty body.
        public var responses: [(status: Int, description: String, schema: String?)]
        public var secured = true
        /// Status → name of one of the builder's shared `responses`.
        public var sharedResponses: [(status: Int, name: String)] = []
        /// Set when a client or script names the operation; otherwise derived from method and path.
        public var operationID: String?
        public var tag: String?
        /// Overrides the builder's `responseMediaType` for this operation's answers.
        public var responseMediaType: String?

        public init(methods: [String], path: String, summary: String,
                    body: (schema: String, mediaTypes: [String])? = nil, query: [(name: String, required: Bool)] = [],
                    responses: [(status: Int, description: String, schema: String?)],
                    sharedResponses: [(status: Int, name: String)] = [], secured: Bool = true,
                    operationID: String? = nil, tag: String? = nil, responseMediaType: String? = nil) {
            self.methods = methods
            self.path = path
            self.summary = summary
            self.body = body
            self.query = query
            self.responses = responses
            self.sharedResponses = sharedResponses
            self.secured = secured
            self.operationID = operationID
            self.tag = tag
            self.responseMediaType = responseMediaType
        }
    }

    public let title: String
    public let description: String
    /// `http` bearer, or an API key header such as `x-authtoken`; nil when the API has no tokens.
    public var security: String?
    /// What a client must know about the token (where it comes from, which status a bad one gets).
    public var securityDescription: String?
    public var servers: [(url: String, description: String?)] = [("http://localhost:8080", nil)]
    /// Path and query parameters by name that are more than a plain string (a UUID, say):
    /// a description and a schema as JSON text.
    public var parameters: [String: (description: String, schema: String)] = [:]
    /// Whether every request body is required (an absent body fails validation rather than reading as empty).
    public var bodiesRequired = false
    /// Answers several operations share, under `components/responses`: name, description, schema as JSON text.
    public var responses: [(name: String, description: String, schema: String)] = []
    /// The `Content-Type` of every answer with a body.
    public var responseMediaType = Response.jsonType
    public var operations: [Operation] = []
    /// Named schemas under `components/schemas`, as JSON text.
    public var schemas: [(name: String, json: String)] = []

    public init(title: String, description: String, security: String?, operations: [Operation] = []) {
        self.title = title
        self.description = description
        self.security = security
        self.operations = operations
    }

    /// The document as compact JSON; a malformed schema fragment is a programming error caught by the tests.
    public func build() -> [UInt8] {
        var tags: [String] = []
        var paths: [String] = []
        for operation in operations {
            if let tag = operation.tag, !tags.contains(tag) { tags.append(tag) }
            if !paths.contains(operation.path) { paths.append(operation.path) }
        }
        let info: [Member] = [("title", .string(title)), ("version", .string(MockBackend.version)),
                              ("description", .string(description))]
        var document: [Member] = [("openapi", .string("3.1.0")), ("info", Self.object(info))]
        document.append(("servers", .array(servers.map { server in
            Self.object([("url", .string(server.url)), ("description", server.description.map(JSONValue.string))])
        })))
        if !tags.isEmpty { document.append(("tags", .array(tags.map { Self.object([("name", .string($0))]) }))) }
        document.append(("paths", Self.object(paths.map { ($0, pathItem($0)) })))
        var components: [Member] = []
        if let security { components.append(("securitySchemes", Self.object([("token", securityScheme(security))]))) }
        components.append(("schemas", Self.object(schemas.map { ($0.name, Self.parse($0.json)) })))
        if !responses.isEmpty {
            components.append(("responses", Self.object(responses.map {
                ($0.name, Self.response($0.description, schema: $0.schema, mediaType: responseMediaType))
            })))
        }
        document.append(("components", Self.object(components)))
        return Self.object(document).encoded(escapeSlash: false)
    }

    /// A member of an object being built; one without a value is left out.
    private typealias Member = (key: String, value: JSONValue?)

    private func securityScheme(_ security: String) -> JSONValue {
        var scheme: [Member] = security == "bearer"
            ? [("type", .string("http")), ("scheme", .string("bearer"))]
            : [("type", .string("apiKey")), ("in", .string("header")), ("name", .string(security))]
        scheme.append(("description", securityDescription.map(JSONValue.string)))
        return Self.object(scheme)
    }

    private func pathItem(_ path: String) -> JSONValue {
        let names = path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
        let inPath = names.map { parameter($0, in: "path", required: true) }
        var item: [Member] = [("parameters", inPath.isEmpty ? nil : .array(inPath))]
        for operation in operations where operation.path == path {
            for method in operation.methods {
                item.append((method.lowercased(), self.operation(operation, method: method)))
            }
        }
        return Self.object(item)
    }

    private func operation(_ operation: Operation, method: String) -> JSONValue {
        // Unless named: `post /api/thread/delete/{thread_id}` → `postApiThreadDeleteThreadId`.
        let words = operation.path.split { !$0.isLetter && !$0.isNumber }.flatMap { $0.split(separator: "_") }
        let derived = method.lowercased() + words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        var fields: [Member] = [("summary", .string(operation.summary)),
                                ("operationId", .string(operation.operationID ?? derived)),
                                ("tags", operation.tag.map { .array([.string($0)]) })]
        if security != nil {
            fields.append(("security", .array(operation.secured ? [Self.object([("token", .array([]))])] : [])))
        }
        let query = operation.query.map { parameter($0.name, in: "query", required: $0.required) }
        fields.append(("parameters", query.isEmpty ? nil : .array(query)))
        if let body = operation.body {
            let required: JSONValue? = bodiesRequired ? .bool(true) : nil
            let content = Self.content(body.mediaTypes, body.schema)
            fields.append(("requestBody", Self.object([("required", required), ("content", content)])))
        }
        let statuses = Set(operation.responses.map(\.status) + operation.sharedResponses.map(\.status)).sorted()
        fields.append(("responses", Self.object(statuses.map { status -> Member in
            if let answer = operation.responses.first(where: { $0.status == status }) {
                let mediaType = operation.responseMediaType ?? responseMediaType
                return (String(status), Self.response(answer.description, schema: answer.schema, mediaType: mediaType))
            }
            let shared = operation.sharedResponses.first { $0.status == status }
            return (String(status), shared.map { Self.object([("$ref", .string("#/components/responses/" + $0.name))]) })
        })))
        return Self.object(fields)
    }

    private func parameter(_ name: String, in location: String, required: Bool) -> JSONValue {
        let described = parameters[name]
        let schema = described.map { Self.parse($0.schema) } ?? Self.object([("type", .string("string"))])
        return Self.object([("name", .string(name)), ("in", .string(location)), ("required", .bool(required)),
                            ("description", described.map { .string($0.description) }), ("schema", schema)])
    }

    private static func response(_ description: String, schema: String?, mediaType: String) -> JSONValue {
        object([("description", .string(description)), ("content", schema.map { content([mediaType], $0) })])
    }

    private static func content(_ mediaTypes: [String], _ schema: String) -> JSONValue {
        object(mediaTypes.map { ($0, object([("schema", parse(schema))])) })
    }

    private static func object(_ members: [Member]) -> JSONValue {
        .object(JSONObject(members.compactMap { member in member.value.map { (member.key, $0) } }))
    }

    private static func parse(_ json: String) -> JSONValue {
        (try? JSONParser.parse(Array(json.utf8))) ?? .object(JSONObject())
    }
}
