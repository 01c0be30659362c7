import MockHTTP
import MockKit

/// Every error the five scripts answer (docs/apis/wsuv-twitter.md#errors), in one place, each explained below. An
/// error is only a status line with the scripts' own reason phrase and an empty body, typed as JSON like the successes.
public enum WSUVError: HTTPStatusError, MethodNotAllowedCase {
    /// A required parameter is absent or empty, or `action` is not `login`/`logout`.
    case badRequest
    case tooLong(String)
    case unauthorized
    case notYourTweet
    case noSuchUser
    case noSuchTweet
    case userExists
    case queryFailed
    /// The script died before answering: CGI.pm could not read a multipart body.
    case scriptDied
    case pathAboveRoot
    /// SQLite refused the insert: the newest tweet has the largest id an AUTOINCREMENT column gives.
    case tweetIDsUsedUp
    case methodNotAllowed
    case serviceUnavailable

    public var status: Int {
        switch self {
        case .badRequest, .tooLong, .pathAboveRoot: return 400
        case .unauthorized: return 401
        case .notYourTweet: return 403
        case .noSuchUser, .noSuchTweet: return 404
        case .methodNotAllowed: return 405
        case .userExists: return 409
        case .queryFailed, .scriptDied, .tweetIDsUsedUp: return 500
        case .serviceUnavailable: return 503
        }
    }

    /// A body over `--max-body`: the status alone, like every error; no case of its own, as no script ran.
    public static func bodyTooLarge(_ reason: String) -> Response {
        Response.json(413, [])
    }

    public func explanation(for request: Request) -> String {
        switch self {
        case .badRequest: return Self.badRequestReason(request)
        case let .tooLong(name): return "`\(name)` is longer than \(WSUVTwitterAPI.fieldLimit) bytes, the cap of every stored text"
        case .unauthorized: return "wrong password, or a session_token that is not the user's live one (each login.cgi logout "
            + "ends it; tokens are forgotten at restart and at reset): log in again"
        case .notYourTweet: return ErrorReason.notYours("that tweet")
        case .noSuchUser: return "no such user (the seeded accounts are on the index page, GET /)"
        case .noSuchTweet: return "no such tweet_id"
        case .userExists: return "that username is taken; log in instead"
        case .queryFailed: return "the date parameter holds a NUL byte, which broke the SQL statement"
        case .scriptDied: return "CGI.pm died reading the multipart body: no boundary in the body, nothing after the first "
            + "one, or a part no boundary ends (without boundary= in the Content-Type the body's first line is the "
            + "boundary, and a body without Content-Length has none)"
        case .pathAboveRoot: return "a `..` in the path climbs above the root, which Apache refused with 400 before any script ran"
        case .tweetIDsUsedUp: return "the newest tweet_id is \(Int.max), the largest SQLite gives: no tweet id is left; "
            + "the seed or state file holds a tweet_id that high"
        case .methodNotAllowed, .serviceUnavailable: return "" // never thrown: the kit answers these and says why
        }
    }

    /// The parameters the script needs and does not have, and where the scripts read them.
    private static func badRequestReason(_ request: Request) -> String {
        let script = WSUVTwitterAPI.scriptName(of: request.path) ?? ""
        // A 400 means the parameters were read (a multipart body CGI.pm died on is a 500).
        guard let parameters = try? WSUVInput(request) else { return "" }
        let source: FieldSource = ["POST", "PUT", "PATCH"].contains(request.method) ? .form : .query
        let missing = (WSUVTwitterAPI.parameters[script] ?? []).filter { $0.required && parameters[$0.name] == nil }
        guard let first = missing.first?.name else {
            return "action must be login or logout, got `\(parameters["action"] ?? "")`"
        }
        if let unread = parameters.unreadBecause { return "required field `\(first)` missing: \(unread)" }
        return ErrorReason.missingField(first, in: request, reads: source)
    }

    /// Any status, whatever the error, with the scripts' phrase where they had their own
    /// (`409 Conflict User Exists`, `503 Database Unavailable`): also the injected faults.
    public func response(status: Int) -> Response {
        var response = Response.json(status, [])
        switch status {
        case 409: response.reason = "Conflict User Exists"
        case 503: response.reason = "Database Unavailable"
        default: break
        }
        return response
    }
}
