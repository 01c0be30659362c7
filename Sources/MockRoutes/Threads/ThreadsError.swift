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

    /// Each error's status and message, as the course's server answered it.
    private var answer: (status: Int, message: String) {
        switch self {
        case .invalidJSON: return (400, "Invalid JSON body.")
        case let .missingField(_, message): return (400, message)
        case let .tooLong(name): return (413, "\(name) is longer than \(ThreadsInput.maxLength) bytes.")
        case .badCredentials: return (401, "Invalid email or password.")
        case .tokenNotFound: return (401, "Token not found.")
        case .invalidToken: return (401, "Invalid token.")
        case .expiredToken: return (401, "Expired token.")
        case .notYourThread: return (403, "You can only delete your own threads.")
        case .notYourMessage: return (403, "You can only delete your own messages.")
        case .threadNotFound: return (404, "Thread not found.")
        case .messageNotFound: return (404, "Message not found.")
        case .methodNotAllowed: return (405, "Method not allowed.")
        case .emailExists: return (409, "Email already exists.")
        case let .idsUsedUp(table): return (500, "No \(table) id is left.")
        case .serviceUnavailable: return (503, "Service unavailable.")
        }
    }

    public var status: Int { answer.status }

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
        case .emailExists: return "an account with that email exists already; log in instead"
        case let .idsUsedUp(table): return "the next \(table) id would be \(Int.max), the largest integer, which is never an id: "
            + "the seed or state file set `next_ids` or an id that high"
        case .methodNotAllowed, .serviceUnavailable: return "" // never thrown: the kit answers these and says why
        }
    }

    public func response(status: Int) -> Response {
        ThreadsAPI.json(object: ["status": "error", "message": answer.message], status: status)
    }

    public static func bodyTooLarge(_ reason: String) -> Response {
        ThreadsAPI.json(object: ["status": "error", "message": reason], status: 413)
    }
}
