import MockKit

/// The OpenAPI 3.1 description of the InternProducts API as this server serves it
/// (`GET /_mock/openapi/internproducts.json`).
enum InternProductsOpenAPI: OpenAPIDescription {
    static let document: [UInt8] = {
        /// Every answer is 200: SUCCESS with the endpoint's shape, or FAILED with a message.
        func answer(_ success: String, _ description: String) -> [(status: Int, description: String, schema: String?)] {
            [(200, "\(description), or FAILED with a message", #"{"oneOf":[\#(ref(success)),\#(ref("Failed"))]}"#)]
        }
        let credentials: [(name: String, required: Bool)] = [("username", true), ("password", true)]

        var builder = OpenAPIBuilder(
            title: "InternProducts (Endava School of iOS 2022)",
            description: "The course's LocalBackend: register, log in, then list products with base64 pictures. "
                + "Paths match case-insensitively; parameters come from the URL query only (`+` is a space, a repeated "
                + "key keeps its last value, an empty value counts as missing). Every answer is status 200 with "
                + "`Content-Type: application/json` (no charset) and `Cache-Control: no-cache`; `status` is "
                + "`SUCCESS` or `FAILED`. JSON is compact with `/` written as `\\/`.",
            security: nil)
        builder.responseMediaType = "application/json"
        builder.operations = [
            Operation(methods: ["GET"], path: "/login", summary: "The user's lifelong loginToken",
                      query: credentials, responses: answer("Token", "The token")),
            Operation(methods: ["GET"], path: "/register", summary: "Create a user; its loginToken works at once",
                      query: credentials, responses: answer("Token", "The new user's token")),
            Operation(methods: ["GET"], path: "/products", summary: "Every product, newest first (the same for every user)",
                      query: [("loginToken", true)], responses: answer("ProductList", "The products")),
        ]
        builder.schemas = [
            ("Failed", object(#""status":{"const":"FAILED"},"message":{"type":"string"}"#)),
            ("Token", object(#""status":{"const":"SUCCESS"},"loginToken":{"type":"string","pattern":"^[1-9][0-9]{8,9}\\.[0-9]{5}[1-9]$"}"#)),
            ("Product", object(#""tags":{"type":"array","items":{"type":"string"}},"title":{"type":"string"},"image":{"type":"string","contentEncoding":"base64","description":"A PNG or JPEG file"},"description":{"type":"string"},"date":{"type":"integer","description":"UNIX seconds"}"#)),
            ("ProductList", object(#""status":{"const":"SUCCESS"},"products":{"type":"array","items":\#(ref("Product"))}"#)),
        ]
        return builder.build()
    }()
}
