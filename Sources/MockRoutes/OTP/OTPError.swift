import MockHTTP
import MockKit

/// Every error the OTP API answers (docs/apis/otp.md#errors), in one place. The body is always the flat
/// `{"error_code":"…","error_message":"…","status":"error"}`, and the status 200: the client reads
/// only the body. The 405 is the one exception.
public enum OTPError: APIError, MethodNotAllowedCase, Equatable {
    case invalidRequest
    case notAString(field: String)
    case invalidPhoneNumber
    case incorrectCode
    case codeExpired
    case tooManyCodes
    /// Not a live token; set when a `--watch` reload ended it.
    case invalidAuthToken(TokenEndedByReload?)
    case invalidName
    case invalidAccounts
    case methodNotAllowed
    case serverError

    /// Each error's `error_code` and `error_message`.
    private var answer: (code: String, message: String) {
        switch self {
        case .invalidRequest: return ("invalid_request", "The request body must be a JSON object")
        case let .notAString(field): return ("invalid_request", "\(field) must be a string")
        case .invalidPhoneNumber: return ("invalid_phone_number", "Your phone number is invalid")
        case .incorrectCode: return ("incorrect_code", "Incorrect verification code")
        case .codeExpired: return ("code_expired", "Your code expired")
        case .tooManyCodes: return ("too_many_requests", "Too many codes were sent to this number; try again later")
        case .invalidAuthToken: return ("invalid_auth_token", "Your auth token is invalid")
        case .invalidName: return ("invalid_name", "Your name must be a string of at most 64 characters")
        case .invalidAccounts:
            return ("invalid_accounts", "Accounts must be a list of objects with string name, ID and amount")
        case .methodNotAllowed: return ("method_not_allowed", "This endpoint only accepts POST")
        case .serverError: return ("server_error", "Server error")
        }
    }

    public var response: Response {
        let (code, message) = answer
        return OTPAPI.json(object: ["error_code": code, "error_message": message, "status": "error"],
                           status: self == .methodNotAllowed ? 405 : 200)
    }

    public func explanation(for request: Request) -> String {
        switch self {
        case .invalidRequest: return ErrorReason.arrived(in: request, reads: .json)
        case let .notAString(field): return "`\(field)` must be a JSON string; " + ErrorReason.arrived(in: request, reads: .json)
        case .invalidPhoneNumber:
            let field = request.path.hasSuffix("verify_code") ? "e164_phone_number" : "phone_number"
            return "`\(field)` missing or not a US number such as +15305550100; " + ErrorReason.arrived(in: request, reads: .json)
        case .incorrectCode: return "wrong code, or no code sent to that number (codes are printed on the console "
            + "and listed at GET /_mock/otp/outbox)"
        case .codeExpired: return "the code expired or was tried too often (5 wrong codes lock a code, 10 lock the "
            + "number for the hour; docs/apis/otp.md#guessing-a-code): send a new one, or POST /_mock/reset/otp"
        case .tooManyCodes: return "20 codes per number per hour (docs/apis/otp.md#guessing-a-code): use the last one, "
            + "listed at GET /_mock/otp/outbox"
        case let .invalidAuthToken(reload):
            guard let token = request.headers["x-authtoken"], !token.isEmpty else {
                return "x-authtoken header missing; send the auth_token from /api/verify_code"
            }
            return ErrorReason.unknownToken(endedBy: reload)
        case .invalidName: return "`name` must be a string of at most 64 characters"
        case .invalidAccounts: return "`accounts` must be a list of objects with string name, ID and amount"
        case .methodNotAllowed, .serverError: return "" // never thrown: the kit answers these and says why
        }
    }

    /// Status 200 whatever was configured, like every answer of this API (docs/admin.md#faults-and-latency).
    public static func injectedFault(status: Int) -> Response {
        serverError.response
    }

    /// With its status, like the 405: the body was never read, so the client must see it was refused.
    public static func bodyTooLarge(_ reason: String) -> Response {
        OTPAPI.json(object: ["error_code": "request_too_large", "error_message": reason, "status": "error"], status: 413)
    }
}
