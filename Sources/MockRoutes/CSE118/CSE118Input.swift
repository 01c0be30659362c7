import MockHTTP
import MockKit
import MockSupport

/// What a request gives an endpoint besides its token: the `{id}` path segment, the `mid` query
/// parameter and the JSON body fields, checked as express-openapi-validator would (docs/apis/cse118.md#errors):
/// path first, then query, then body; the first stage with problems answers with all of them.
struct CSE118Input {
    /// A body schema: string properties in schema order, each with its length limits in code points.
    struct BodySchema {
        var properties: [(name: String, length: ClosedRange<Int>?)]

        static let credentials = BodySchema(properties: [("email", nil), ("password", nil)])
        static let name = BodySchema(properties: [("name", 1...32)])
        static let content = BodySchema(properties: [("content", 1...1000)])
    }

    static let listedUnknownProperties = 100

    /// The `{id}` segment (in lower case).
    private(set) var id = CSE118ID.unset
    /// The `mid` query value (in lower case).
    private(set) var mid = CSE118ID.unset
    private var fields: [String: String] = [:]

    init(_ request: Request, pathID: Bool = false, takesMid: Bool = false, body schema: BodySchema? = nil)
        throws(CSE118Error) {
        if pathID {
            guard let segment = CSE118ID(anyCase: request[parameter: "id"] ?? "") else {
                throw .validation([.uuidFormat(at: "/params/id")])
            }
            id = segment
        }
        try readQuery(request.query ?? "", takesMid: takesMid)
        if let schema { try readBody(request.body, schema: schema) }
    }

    /// A validated body field; every schema property is required, so it is always there.
    subscript(field name: String) -> String { fields[name] ?? "" }

    private mutating func readQuery(_ query: String, takesMid: Bool) throws(CSE118Error) {
        let pairs = FormDecoding.pairs(Array(query.utf8), malformed: .keepLiteral)
        let mids = pairs.filter { $0.name == "mid" }
        var problems: [ValidationProblem] = []
        if takesMid && mids.isEmpty { problems.append(.required("mid", in: "query")) }
        var seen = Set<String>()
        for pair in pairs where seen.insert(pair.name).inserted {
            guard takesMid && pair.name == "mid" else {
                problems.append(.additional(pair.name, in: "query"))
                continue
            }
            // Express turns a repeated parameter into an array, which the string schema refuses.
            if mids.count > 1 {
                problems.append(ValidationProblem(.type, at: "/query/mid", "must be string"))
            } else if let value = CSE118ID(anyCase: pair.value) {
                mid = value
            } else {
                problems.append(.uuidFormat(at: "/query/mid"))
            }
        }
        if !problems.isEmpty { throw .validation(problems) }
    }

    private mutating func readBody(_ body: [UInt8], schema: BodySchema) throws(CSE118Error) {
        var object = JSONObject()
        if !body.isEmpty {
            guard let parsed = try? JSONParser.parse(body, maxValues: JSONParser.requestBodyValueLimit) else {
                throw .invalidJSON
            }
            guard case let .object(members) = parsed else {
                throw .validation([ValidationProblem(.type, at: "/body", "must be object")])
            }
            object = members
        }
        var missing: [ValidationProblem] = [], wrongType: [ValidationProblem] = [], wrongLength: [ValidationProblem] = []
        for (name, length) in schema.properties {
            let path = "/body/\(name)"
            guard let value = object[name] else {
                missing.append(.required(name, in: "body"))
                continue
            }
            guard case let .string(text) = value else {
                wrongType.append(ValidationProblem(.type, at: path, "must be string"))
                continue
            }
            let count = text.unicodeScalars.count
            if let length, count < length.lowerBound {
                wrongLength.append(ValidationProblem(.minLength, at: path,
                                                     "must NOT have fewer than \(length.lowerBound) characters"))
            } else if let length, count > length.upperBound {
                wrongLength.append(ValidationProblem(.maxLength, at: path,
                                                     "must NOT have more than \(length.upperBound) characters"))
            }
            fields[name] = text
        }
        var seen = Set(schema.properties.map(\.name))
        // The first 100 unknown properties: the real server listed every one, but its body parser
        // took 100 kB at most, and 16 MiB of keys would answer 240 MB (docs/apis/cse118.md#errors).
        var unknown: [ValidationProblem] = []
        for key in object.keys where unknown.count < Self.listedUnknownProperties && seen.insert(key).inserted {
            unknown.append(.additional(key, in: "body"))
        }
        let problems = missing + wrongType + wrongLength + unknown
        if !problems.isEmpty { throw .validation(problems) }
    }
}
