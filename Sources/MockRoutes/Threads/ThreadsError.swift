import MockHTTP
import MockKit

/// Every error the threads API answers, with its status and text (docs/apis/threads.md#errors), in one place.
/// The body is always `{"status":"error","message":"…"}`.
public enum ThreadsError: HTTPStatusError, MethodNotAllowedCase {
    case invalidJSON
    case missingField(name: String, message: String)
    /// A field over the cap every stored text has (docs/apis/threads.md#size-limits).
    case tooLong(name: String)
    case badCredentials
    case tokenNotFound
    /// Not a live token; set when a `--watch` reload ended it.
    case invalidToken(TokenEndedByReload?)
    case expiredToken
    case notYourThread
    case notYourMessage
    case threadNotFound
    case messageNotFound
    case methodNotAllowed
    case emailExists
    /// A create when that table's next id would be the largest integer (docs/apis/threads.md#errors).
    case idsUsedUp(table: String)
    case serviceUnavailable

    public var status: Int {
        switch self {
        case .invalidJSON, .missingField: return 400
        case .tooLong: return 413
        case .badCredentials, .tokenNotFound, .invalidToken, .expiredToken: return 401
        case .notYourThread, .notYourMessage: return 403
        case .threadNotFound, .messageNotFound: return 404
        case .methodNotAllowed: return 405
        case .emailExists: return 409
        case .idsUsedUp: return 500
        case .serviceUnavailable: return 503
        }
    }

    var message: String {
        switch self {
        case .invalidJSON: return "Invalid JSON body."
        case let .missingField(_, message): return message
        case let .tooLong(name): return "\(name) is longer than \(ThreadsInput.maxLength) bytes."
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
        case let .idsUsedUp(table): return "No \(table) id is left."
        case .serviceUnavailable: return "Service unavailable."
        }
    }

    public func explanation(for request: Request) -> String {
        switch self {
        case .invalidJSON: return ErrorReason.arrived(in: request, reads: .anyBody)
        case let .missingField(name, _): return ErrorReason.missingField(name, in: request, reads: .anyBody)
        case let .tooLong(name): return "`\(name)` is over the cap of every stored text (docs/apis/threads.md#size-limits)"
        case .badCredentials: return ErrorReason.badCredentials
        case .tokenNotFound: return ErrorReason.authorization(request, expected: "BEARER <token>")
        case let .invalidToken(reload): return ErrorReason.unknownToken(endedBy: reload)
        case .expiredToken: return ErrorReason.expiredToken
        case .notYourThread: return ErrorReason.notYours("thread \(request[parameter: "thread_id"] ?? "?")")
        case .notYourMessage: return ErrorReason.notYours("message \(request[parameter: "message_id"] ?? "?")")
        case .threadNotFound: return "no such thread (never created, or deleted)"
        case .messageNotFound: return "no such message (never created, or deleted)"
        case .methodNotAllowed: return "this path does not take \(request.method)"
        case .emailExists: return "an account with that email exists already; log in instead"
        case let .idsUsedUp(table): return "the next \(table) id would be \(Int.max), the largest integer, which is never an id: "
            + "the seed or state file set `next_ids` or an id that high"
        case .serviceUnavailable: return "injected fault"
        }
    }

    public func response(status: Int) -> Response {
        ThreadsAPI.json(ErrorBody(message: message), status: status)
    }

    public static func bodyTooLarge(_ reason: String) -> Response {
        ThreadsAPI.json(ErrorBody(message: reason), status: 413)
    }

    private struct ErrorBody: Encodable {
        var status = "error"
        var message: String
    }
}
