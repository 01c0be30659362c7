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
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        writer.key("openapi"); writer.string("3.1.0")
        writer.key("info")
        writer.beginObject()
        writer.key("title"); writer.string(title)
        writer.key("version"); writer.string(MockBackend.version)
        writer.key("description"); writer.string(description)
        writer.endObject()
        writer.key("servers")
        writer.beginArray()
        for server in servers {
            writer.beginObject()
            writer.key("url"); writer.string(server.url)
            if let description = server.description { writer.key("description"); writer.string(description) }
            writer.endObject()
        }
        writer.endArray()
        var tags: [String] = []
        for operation in operations { if let tag = operation.tag, !tags.contains(tag) { tags.append(tag) } }
        if !tags.isEmpty {
            writer.key("tags")
            writer.beginArray()
            for tag in tags { writer.beginObject(); writer.key("name"); writer.string(tag); writer.endObject() }
            writer.endArray()
        }
        writer.key("paths")
        writer.beginObject()
        var paths: [String] = []
        for operation in operations where !paths.contains(operation.path) { paths.append(operation.path) }
        for path in paths {
            writer.key(path)
            writer.beginObject()
            let parameters = path.split(separator: "/").filter { $0.hasPrefix("{") }.map { $0.dropFirst().dropLast() }
            if !parameters.isEmpty {
                writer.key("parameters")
                writer.beginArray()
                for name in parameters { writeParameter(String(name), in: "path", required: true, to: &writer) }
                writer.endArray()
            }
            for operation in operations where operation.path == path {
                for method in operation.methods {
                    writer.key(method.lowercased())
                    write(operation, method: method, to: &writer)
                }
            }
            writer.endObject()
        }
        writer.endObject()
        writer.key("components")
        writer.beginObject()
        if let security {
            writer.key("securitySchemes")
            writer.beginObject()
            writer.key("token")
            if security == "bearer" {
                writer.beginObject(); writer.key("type"); writer.string("http"); writer.key("scheme"); writer.string("bearer")
            } else {
                writer.beginObject(); writer.key("type"); writer.string("apiKey")
                writer.key("in"); writer.string("header"); writer.key("name"); writer.string(security)
            }
            if let securityDescription { writer.key("description"); writer.string(securityDescription) }
            writer.endObject()
            writer.endObject()
        }
        writer.key("schemas")
        writer.beginObject()
        for schema in schemas {
            writer.key(schema.name)
            writer.raw(Self.compact(schema.json))
        }
        writer.endObject()
        if !responses.isEmpty {
            writer.key("responses")
            writer.beginObject()
            for response in responses {
                writer.key(response.name)
                writeResponse(description: response.description, schema: response.schema, mediaType: responseMediaType, to: &writer)
            }
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    private func write(_ operation: Operation, method: String, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("summary"); writer.string(operation.summary)
        writer.key("operationId"); writer.string(operation.operationID ?? Self.operationID(method: method, path: operation.path))
        if let tag = operation.tag { writer.key("tags"); writer.beginArray(); writer.string(tag); writer.endArray() }
        if security != nil {
            writer.key("security")
            writer.raw(Array((operation.secured ? #"[{"token":[]}]"# : "[]").utf8))
        }
        if !operation.query.isEmpty {
            writer.key("parameters")
            writer.beginArray()
            for parameter in operation.query { writeParameter(parameter.name, in: "query", required: parameter.required, to: &writer) }
            writer.endArray()
        }
        if let body = operation.body {
            writer.key("requestBody")
            writer.beginObject()
            if bodiesRequired { writer.key("required"); writer.bool(true) }
            writer.key("content")
            writer.beginObject()
            for type in body.mediaTypes {
                writer.key(type)
                writer.beginObject(); writer.key("schema"); writer.raw(Self.compact(body.schema)); writer.endObject()
            }
            writer.endObject()
            writer.endObject()
        }
        writer.key("responses")
        writer.beginObject()
        let statuses = Set(operation.responses.map(\.status) + operation.sharedResponses.map(\.status)).sorted()
        for status in statuses {
            writer.key(String(status))
            if let response = operation.responses.first(where: { $0.status == status }) {
                writeResponse(description: response.description, schema: response.schema,
                              mediaType: operation.responseMediaType ?? responseMediaType, to: &writer)
            } else if let shared = operation.sharedResponses.first(where: { $0.status == status }) {
                writer.raw(Array(##"{"$ref":"#/components/responses/\##(shared.name)"}"##.utf8))
            }
        }
        writer.endObject()
        writer.endObject()
    }

    private func writeResponse(description: String, schema: String?, mediaType: String, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("description"); writer.string(description)
        if let schema {
            writer.key("content")
            writer.beginObject()
            writer.key(mediaType)
            writer.beginObject(); writer.key("schema"); writer.raw(Self.compact(schema)); writer.endObject()
            writer.endObject()
        }
        writer.endObject()
    }

    private func writeParameter(_ name: String, in location: String, required: Bool, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("name"); writer.string(name)
        writer.key("in"); writer.string(location)
        writer.key("required"); writer.bool(required)
        if let described = parameters[name] {
            writer.key("description"); writer.string(described.description)
            writer.key("schema"); writer.raw(Self.compact(described.schema))
        } else {
            writer.key("schema"); writer.raw(Array(#"{"type":"string"}"#.utf8))
        }
        writer.endObject()
    }

    /// `post /api/thread/delete/{thread_id}` → `postApiThreadDeleteThreadId`
    public static func operationID(method: String, path: String) -> String {
        let words = path.split { !$0.isLetter && !$0.isNumber }.flatMap { $0.split(separator: "_") }
        return method.lowercased() + words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    private static func compact(_ json: String) -> [UInt8] {
        (try? JSONParser.parse(Array(json.utf8)).encoded(escapeSlash: false)) ?? Array("{}".utf8)
    }

    /// `{"$ref":"#/components/schemas/Name"}`
    public static func ref(_ name: String) -> String { ##"{"$ref":"#/components/schemas/\##(name)"}"## }
}
