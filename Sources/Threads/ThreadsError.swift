import MockHTTP
import MockKit

/// Every error the threads API answers, with its status and text (contract §5), in one place.
/// The body is always `{"status":"error","message":"…"}`.
public enum ThreadsError: HTTPStatusError {
    case invalidJSON
    case missingField(String)
    case badCredentials
    case tokenNotFound
    case invalidToken
    case expiredToken
    case notYourThread
    case notYourMessage
    case threadNotFound
    case messageNotFound
    case methodNotAllowed
    case emailExists
    case serviceUnavailable

    public var status: Int {
        switch self {
        case .invalidJSON, .missingField: return 400
        case .badCredentials, .tokenNotFound, .invalidToken, .expiredToken: return 401
        case .notYourThread, .notYourMessage: return 403
        case .threadNotFound, .messageNotFound: return 404
        case .methodNotAllowed: return 405
        case .emailExists: return 409
        case .serviceUnavailable: return 503
        }
    }

    var message: String {
        switch self {
        case .invalidJSON: return "Invalid JSON body."
        case let .missingField(text): return text
        case .badCredentials: return "Invalid email or password."
        case .tokenNotFound: return "Token not found."
        case .invalidToken: return "Invalid token."
        case .expiredToken: return "Expired token."
        case .notYourThread: return "You can only delete your own threads."
        case .notYourMessage: return "You can only delete your own messages."
        case .threadNotFound: return "Thread not found."
        case .messageNotFound: return "Message not found."
        case .methodNotAllowed: return "Method not allowed."
        case .emailExists: return "Email already exists."
        case .serviceUnavailable: return "Service unavailable."
        }
    }

    public static func methodNotAllowed(_ request: Request) -> Response {
        methodNotAllowed.response
    }

    public func response(status: Int) -> Response {
        ThreadsAPI.json(ErrorBody(message: message), status: status)
    }

    private struct ErrorBody: Encodable {
        var status = "error"
        var message: String
    }
}
