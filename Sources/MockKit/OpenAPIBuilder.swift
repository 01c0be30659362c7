import MockHTTP

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

        public init(methods: [String], path: String, summary: String,
                    body: (schema: String, mediaTypes: [String])? = nil, query: [(name: String, required: Bool)] = [],
                    responses: [(status: Int, description: String, schema: String?)], secured: Bool = true) {
            self.methods = methods
            self.path = path
            self.summary = summary
            self.body = body
            self.query = query
            self.responses = responses
            self.secured = secured
        }
    }

    public let title: String
    public let description: String
    /// `http` bearer, or an API key header such as `x-authtoken`; nil when the API has no tokens.
    public var security: String?
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
        writer.key("servers"); writer.raw(Array(#"[{"url":"http://localhost:8080"}]"#.utf8))
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
                for name in parameters {
                    writer.raw(Array(#"{"name":"\#(name)","in":"path","required":true,"schema":{"type":"string"}}"#.utf8))
                }
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
                writer.raw(Array(#"{"type":"http","scheme":"bearer"}"#.utf8))
            } else {
                writer.raw(Array(#"{"type":"apiKey","in":"header","name":"\#(security)"}"#.utf8))
            }
            writer.endObject()
        }
        writer.key("schemas")
        writer.beginObject()
        for schema in schemas {
            writer.key(schema.name)
            writer.raw(Self.compact(schema.json))
        }
        writer.endObject()
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    private func write(_ operation: Operation, method: String, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("summary"); writer.string(operation.summary)
        writer.key("operationId"); writer.string(Self.operationID(method: method, path: operation.path))
        if security != nil {
            writer.key("security")
            writer.raw(Array((operation.secured ? #"[{"token":[]}]"# : "[]").utf8))
        }
        if !operation.query.isEmpty {
            writer.key("parameters")
            writer.beginArray()
            for parameter in operation.query {
                writer.raw(Array(#"{"name":"\#(parameter.name)","in":"query","required":\#(parameter.required),"schema":{"type":"string"}}"#.utf8))
            }
            writer.endArray()
        }
        if let body = operation.body {
            writer.key("requestBody")
            writer.beginObject()
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
        for response in operation.responses {
            writer.key(String(response.status))
            writer.beginObject()
            writer.key("description"); writer.string(response.description)
            if let schema = response.schema {
                writer.key("content")
                writer.beginObject()
                writer.key(responseMediaType)
                writer.beginObject(); writer.key("schema"); writer.raw(Self.compact(schema)); writer.endObject()
                writer.endObject()
            }
            writer.endObject()
        }
        writer.endObject()
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
