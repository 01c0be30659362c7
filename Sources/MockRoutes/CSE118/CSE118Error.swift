import MockHTTP
import MockKit

/// Every error the cse118 API answers (docs/apis/cse118.md#errors), in one place.
/// The body is `{"message":"…","status":N}`, except validation failures, which carry the
/// express-openapi-validator envelope `{"message":"…","errors":[…],"status":400}`.
public enum CSE118Error: HTTPStatusError, MethodNotAllowedCase, Equatable {
    case invalidJSON
    case validation([ValidationProblem])
    case invalidCredentials
    case authorizationRequired
    /// Not a live token; set when a `--watch` reload ended it.
    case invalidToken(TokenEndedByReload?)
    case ownerOnly
    case posterOrOwnerOnly
    case workspaceNotFound
    case channelNotFound
    case messageNotFound
    case memberNotFound
    case memberNotInWorkspace
    case methodNotAllowed
    case memberOwnsWorkspace
    case memberAlreadyInWorkspace
    case serviceUnavailable

    /// Each error's status and message, as the course's server answered it.
    private var answer: (status: Int, message: String) {
        switch self {
        case .invalidJSON: return (400, "Request body is not valid JSON")
        case let .validation(problems): return (400, problems.map(\.summary).joined(separator: ", "))
        case .invalidCredentials: return (401, "Invalid credentials")
        case .authorizationRequired: return (401, "Authorization header required")
        case .invalidToken: return (403, "Invalid access token")
        case .ownerOnly: return (403, "Only the workspace owner may do that")
        case .posterOrOwnerOnly: return (403, "Only the poster or the workspace owner may delete this message")
        case .workspaceNotFound: return (404, "Workspace not found")
        case .channelNotFound: return (404, "Channel not found")
        case .messageNotFound: return (404, "Message not found")
        case .memberNotFound: return (404, "Member not found")
        case .memberNotInWorkspace: return (404, "Member not in workspace")
        case .methodNotAllowed: return (405, "Method not allowed")
        case .memberOwnsWorkspace: return (409, "Member owns this workspace")
        case .memberAlreadyInWorkspace: return (409, "Member already in workspace")
        case .serviceUnavailable: return (503, "Service Unavailable")
        }
    }

    public var status: Int { answer.status }

    public func explanation(for request: Request) -> String {
        switch self {
        case .invalidJSON: return ErrorReason.arrived(in: request, reads: .json)
        case let .validation(problems):
            let missing = problems.first { $0.errorCode.hasPrefix("required.") }
            if let missing, missing.path.hasPrefix("/body/") {
                return ErrorReason.missingField(String(missing.path.dropFirst(6)), in: request, reads: .json)
            }
            return answer.message + "; " + ErrorReason.arrived(in: request, reads: .json)
        case .invalidCredentials: return ErrorReason.badCredentials
        case .authorizationRequired: return ErrorReason.authorization(request)
        case let .invalidToken(reload):
            let value = request.headers["Authorization"] ?? ""
            if !value.lowercased().hasPrefix("bearer ") { return ErrorReason.authorization(request) }
            return ErrorReason.unknownToken(endedBy: reload)
        case .ownerOnly: return ErrorReason.notYours("that workspace") + " (only its owner may do that)"
        case .posterOrOwnerOnly: return ErrorReason.notYours("that message") + " (only its poster or the workspace owner may delete it)"
        case .workspaceNotFound: return "no such workspace among yours (not a member, wrong id, or deleted)"
        case .channelNotFound: return "no such channel in your workspaces (wrong id, or deleted)"
        case .messageNotFound: return "no such message in your workspaces (wrong id, or deleted)"
        case .memberNotFound: return "no such member id"
        case .memberNotInWorkspace: return "that member is not in the workspace"
        case .memberOwnsWorkspace: return "that member owns the workspace already"
        case .memberAlreadyInWorkspace: return "that member is in the workspace already"
        case .methodNotAllowed, .serviceUnavailable: return "" // never thrown: the kit answers these and says why
        }
    }

    public func response(status: Int) -> Response {
        var problems: [ValidationProblem]?
        if case let .validation(list) = self { problems = list }
        return CSE118API.json(ErrorBody(message: answer.message, errors: problems, status: status), status: status)
    }

    /// In the words of Express's body parser, whose limit the real server had.
    public static func bodyTooLarge(_ reason: String) -> Response {
        CSE118API.json(ErrorBody(message: "request entity too large", status: 413), status: 413)
    }

    /// `errors` in the validation envelope only.
    private struct ErrorBody: Encodable {
        var message: String
        var errors: [ValidationProblem]?
        var status: Int
    }
}

/// One entry of the validation envelope: `{"path":"/body/name","message":"…","errorCode":"…"}`.
public struct ValidationProblem: Encodable, Equatable, Sendable {
    enum Kind: String {
        case format, required, type, minLength, maxLength, additionalProperties
    }

    var path: String
    var message: String
    var errorCode: String

    init(_ kind: Kind, at path: String, _ message: String) {
        self.path = path
        self.message = message
        errorCode = "\(kind.rawValue).openapi.validation"
    }

    /// `request/body/name must NOT have fewer than 1 characters`, as the validator words its summary.
    var summary: String { "request\(path) \(message)" }

    static func uuidFormat(at path: String) -> ValidationProblem {
        ValidationProblem(.format, at: path, "must match format \"uuid\"")
    }

    static func required(_ name: String, in location: String) -> ValidationProblem {
        ValidationProblem(.required, at: "/\(location)/\(name)", "must have required property '\(name)'")
    }

    static func additional(_ name: String, in location: String) -> ValidationProblem {
        ValidationProblem(.additionalProperties, at: "/\(location)/\(name)", "must NOT have additional properties")
    }
}
