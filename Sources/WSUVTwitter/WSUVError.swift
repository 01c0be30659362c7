import MockHTTP
import MockKit

/// Every error the five scripts answer (contract §2, §4), in one place. An error is only a status
/// line with the scripts' own reason phrase and an empty body, typed as JSON like the successes.
public enum WSUVError: APIError {
    /// A required parameter is absent or empty, or `action` is not `login`/`logout`.
    case badRequest
    /// Wrong password, or a session token that is not the user's live one.
    case unauthorized
    /// The tweet belongs to someone else.
    case notYourTweet
    case noSuchUser
    case noSuchTweet
    case userExists
    /// The SQL statement failed: a `date` with a NUL byte.
    case queryFailed
    /// The script died before answering: CGI.pm could not read a multipart body.
    case scriptDied

    var status: Int {
        switch self {
        case .badRequest: return 400
        case .unauthorized: return 401
        case .notYourTweet: return 403
        case .noSuchUser, .noSuchTweet: return 404
        case .userExists: return 409
        case .queryFailed, .scriptDied: return 500
        }
    }

    public var response: Response { Self.response(status: status) }

    public static func injectedFault(status: Int) -> Response {
        response(status: status)
    }

    public static func methodNotAllowed(_ request: Request) -> Response {
        response(status: 405)
    }

    /// Any status in this format, with the scripts' phrase where they had their own
    /// (`409 Conflict User Exists`, `503 Database Unavailable`): also the injected faults.
    private static func response(status: Int) -> Response {
        var response = Response.json(status, [])
        switch status {
        case 409: response.reason = "Conflict User Exists"
        case 503: response.reason = "Database Unavailable"
        default: break
        }
        return response
    }
}
