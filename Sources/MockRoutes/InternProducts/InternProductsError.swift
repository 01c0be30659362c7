import MockHTTP
import MockKit

/// Every FAILED answer of the InternProducts API (docs/apis/internproducts.md#endpoints, docs/admin.md#faults-and-latency), in one place.
/// The body is always `{"status":"FAILED","message":"…"}`; the status is 200 except for 405 and
/// injected faults.
public enum InternProductsError: HTTPStatusError {
    case missingParameter(String)
    case noSuchUser(String)
    case wrongPassword(String)
    case usernameUsed(String)
    /// Not a live token; set when a `--watch` reload ended it.
    case invalidToken(TokenEndedByReload?)
    case methodNotAllowed(String)
    case serviceUnavailable

    /// Each error's status and message: 200 but for 405 and injected faults.
    private var answer: (status: Int, message: String) {
        switch self {
        case let .missingParameter(name): return (200, "Missing parameter: \(name)")
        case let .noSuchUser(username): return (200, "No such user with username: \(username)")
        case let .wrongPassword(username): return (200, "Wrong password for username: \(username)")
        case let .usernameUsed(username): return (200, "Username already used: \(username)")
        case .invalidToken: return (200, "Invalid login token")
        case let .methodNotAllowed(method): return (405, "Method not allowed: \(method)")
        case .serviceUnavailable: return (503, "Service unavailable")
        }
    }

    public var status: Int { answer.status }

    public func explanation(for request: Request) -> String {
        switch self {
        case let .missingParameter(name): return ErrorReason.missingField(name, in: request, reads: .query)
        case .noSuchUser: return "no such username; the seeded accounts are on the index page (GET /)"
        case .wrongPassword: return "wrong password for that username"
        case .usernameUsed: return "that username is taken; log in instead"
        case let .invalidToken(reload): return "loginToken: " + ErrorReason.unknownToken(endedBy: reload)
        case .methodNotAllowed, .serviceUnavailable: return "" // never thrown: the kit answers these and says why
        }
    }

    public static func methodNotAllowed(_ request: Request) -> Response {
        methodNotAllowed(request.method).response
    }

    public func response(status: Int) -> Response {
        InternProductsAPI.json(object: ["status": "FAILED", "message": answer.message], status: status)
    }

    public static func bodyTooLarge(_ reason: String) -> Response {
        InternProductsAPI.json(object: ["status": "FAILED", "message": reason], status: 413)
    }
}
