import MockKit

/// The OpenAPI 3.1 description of the OTP API as this server serves it (`GET /_mock/openapi/otp.json`).
enum OTPOpenAPI: OpenAPIDescription {
    static let document: [UInt8] = {
        /// The body is parsed as JSON whatever its `Content-Type` (the course's client sends none).
        func json(_ schema: String) -> (schema: String, mediaTypes: [String]) { (schema, ["application/json", "*/*"]) }
        /// Every answer is 200: `status` `ok` with the endpoint's shape, or the flat error.
        func answer(_ success: String, _ description: String, errors codes: String) -> [(status: Int, description: String, schema: String?)] {
            [(200, "\(description), or an error (\(codes))", #"{"oneOf":[\#(ref(success)),\#(ref("Error"))]}"#)]
        }
        let phone = #"{"type":"string","description":"A US number: +1 and 10 digits, 10 digits, or 11 starting with 1; spaces, -, . and parentheses are ignored"}"#

        var builder = OpenAPIBuilder(
            title: "OTP login and wallet user (UC Davis ECS 189E)",
            description: "Log in with a phone number and a six-digit code (read it from `GET /_mock/otp/outbox` or the "
                + "console; `--otp-code` fixes it), then read and write the user with the `x-authtoken` header. "
                + "POST only; the body is JSON whatever its Content-Type (empty means `{}`); the query is ignored. "
                + "Every answer is status 200: `\"status\":\"ok\"`, or the flat "
                + "`{\"error_code\":…,\"error_message\":…,\"status\":\"error\"}`. Keys are sorted in every object.",
            security: "x-authtoken")
        builder.operations = [
            Operation(methods: ["POST"], path: "/api/send_verification_code",
                      summary: "Issue a code for the number (replacing any pending one); nothing is texted",
                      body: json(#"{"type":"object","properties":{"phone_number":\#(phone)},"required":["phone_number"]}"#),
                      responses: answer("Sent", "Code issued", errors: "invalid_request, invalid_phone_number"), secured: false),
            Operation(methods: ["POST"], path: "/api/verify_code",
                      summary: "Check the pending code (single use, 5 attempts); find or create the user and issue a new token",
                      body: json(#"{"type":"object","properties":{"e164_phone_number":\#(phone),"code":{"type":"string","pattern":"^[0-9]{6}$"}},"required":["e164_phone_number","code"]}"#),
                      responses: answer("Verified", "The token and the user",
                                        errors: "invalid_request, invalid_phone_number, incorrect_code, code_expired"),
                      secured: false),
            Operation(methods: ["POST"], path: "/api/user",
                      summary: "The token's user: `{}` reads, `name` renames, `accounts` replaces the whole list",
                      body: json(#"{"type":"object","properties":{"name":{"type":"string","maxLength":64},"accounts":{"type":"array","items":\#(ref("Account"))}}}"#),
                      responses: answer("UserAnswer", "The user as it now is",
                                        errors: "invalid_auth_token, invalid_request, invalid_name, invalid_accounts")),
        ]
        let secret = { (length: Int) in #"{"type":"string","pattern":"^[A-Za-z0-9_-]{\#(length)}$"}"# }
        builder.schemas = [
            ("Error", object(#""error_code":{"type":"string"},"error_message":{"type":"string"},"status":{"const":"error"}"#)),
            ("Sent", object(#""status":{"const":"ok"}"#)),
            ("Account", object(#""ID":{"type":"string"},"amount":{"type":"string","pattern":"^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?$"},"name":{"type":"string"}"#)),
            ("User", object(#""accounts":{"type":"array","items":\#(ref("Account")),"description":"Absent until accounts were first saved"},"drivers_license":{"type":"null"},"e164_phone_number":{"type":"string","pattern":"^\\+1[2-9][0-9]{2}[2-9][0-9]{6}$"},"email":{"type":"null"},"keyfile_password":\#(secret(32)),"name":{"type":"string"},"payment_methods":{"type":"array","maxItems":0},"tos_accpted":{"const":0},"user_id":\#(secret(24))"#, optional: ["accounts"])),
            ("Verified", object(#""auth_token":\#(secret(32)),"is_new_user":{"enum":[0,1]},"status":{"const":"ok"},"user":\#(ref("User"))"#)),
            ("UserAnswer", object(#""status":{"const":"ok"},"user":\#(ref("User"))"#)),
        ]
        return builder.build()
    }()
}
