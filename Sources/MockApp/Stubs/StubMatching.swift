import Foundation
import MockHTTP
import MockKit
import MockSupport

/// A stub's or a fault rule's method (nil: any) and path: `{name}` segments, or (stubs only) a
/// regular expression.
struct RoutePattern: Sendable {
    var method: String?
    var path: StubPath

    /// `GET /api/thread/{id}`, or `GET ~ /api/thread/[0-9]+` for an expression.
    var text: String { "\(method ?? "*") \(path.text)" }

    func matches(method requested: String, path requestPath: String) -> Bool {
        (method == nil || method == requested) && path.match(requestPath) != nil
    }
}

enum StubPath: Sendable {
    case segments(PathTemplate)
    case expression(PathExpression)

    var text: String {
        switch self {
        case let .segments(pattern): return pattern.text
        case let .expression(expression): return "~ " + expression.pattern
        }
    }

    /// The names `{{path.…}}` may use: the `{name}` segments, or the expression's groups `1`, `2`, ….
    var parameterNames: [String] {
        switch self {
        case let .segments(pattern): return pattern.parameterNames
        case let .expression(expression): return expression.groupCount == 0 ? [] : (1...expression.groupCount).map(String.init)
        }
    }

    func match(_ path: String) -> [String: String]? {
        switch self {
        case let .segments(pattern): return pattern.match(path)
        case let .expression(expression):
            guard case let .matched(groups) = expression.match(path) else { return nil }
            return groups
        }
    }
}

/// A `path_regex`: an ICU regular expression (NSRegularExpression's syntax) that must match the
/// whole path as sent, not percent-decoded; its capture groups are `{{path.1}}`, `{{path.2}}`, ….
/// A pattern written to backtrack without end (`(a+)+$`) is stopped after a fixed amount of work
/// and counts as no match, so one bad stub cannot hold a connection's thread for minutes.
struct PathExpression: @unchecked Sendable {
    // @unchecked: NSRegularExpression is immutable once made, and documented as safe to share
    // between threads; Swift 6.0's Foundation does not mark it Sendable on every platform.
    let pattern: String
    private let whole: NSRegularExpression

    /// Longer patterns are refused: a path pattern needs far fewer characters.
    static let maxPatternLength = 512
    /// ICU reports progress every ten thousand or so backtracking steps; a pattern still at it
    /// after this many reports has met a path it cannot settle (a few milliseconds each).
    static let progressReportLimit = 32

    /// The stub file's `path_regex`.
    init(_ node: SeedNode) throws(SeedError) {
        let pattern = try node.string()
        guard !pattern.isEmpty else { throw node.fail("expected a regular expression, not an empty string") }
        guard pattern.count <= Self.maxPatternLength else {
            throw node.fail("a pattern of \(pattern.count) characters; at most \(Self.maxPatternLength)")
        }
        // Checked on its own first: inside the anchors an unbalanced `)` could pair with ours.
        guard (try? NSRegularExpression(pattern: pattern)) != nil,
              let whole = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z") else {
            throw node.fail("not a valid regular expression (ICU syntax, as NSRegularExpression reads it)")
        }
        self.pattern = pattern
        self.whole = whole
    }

    var groupCount: Int { whole.numberOfCaptureGroups }

    enum Outcome {
        /// `["1": "42", …]` (a group that took no part is empty text).
        case matched([String: String])
        case noMatch
        /// Stopped at the limit of work.
        case gaveUp
    }

    func match(_ path: String) -> Outcome {
        let text = path as NSString
        var found: NSTextCheckingResult?
        var reports = 0
        whole.enumerateMatches(in: path, options: [.reportProgress], range: NSRange(location: 0, length: text.length)) { result, _, stop in
            if let result {
                found = result
                stop.pointee = true
            } else {
                reports += 1
                if reports >= Self.progressReportLimit { stop.pointee = true }
            }
        }
        guard let found else { return reports >= Self.progressReportLimit ? .gaveUp : .noMatch }
        var groups: [String: String] = [:]
        for group in stride(from: 1, through: groupCount, by: 1) {
            let range = found.range(at: group)
            groups[String(group)] = range.location == NSNotFound ? "" : text.substring(with: range)
        }
        return .matched(groups)
    }
}

/// `body_json`: the request's body, read as JSON, must hold the given members. An object matches
/// when it has every member given, each matching (more members are fine); anything else must be
/// equal: arrays element by element, numbers by value (`1` and `1.0` are one number).
enum StubBodyJSON {
    /// The first member of `expected` the body lacks, or nil when the body matches.
    static func firstMissed(_ expected: JSONObject, in body: JSONValue?) -> (key: String, value: JSONValue)? {
        guard let object = body?.objectValue else { return expected.members.first }
        return expected.members.first { !has($0, in: object) }
    }

    /// A repeated key counts as its last value, as JSON readers take it.
    private static func has(_ member: (key: String, value: JSONValue), in object: JSONObject) -> Bool {
        object[member.key].map { matches($0, member.value) } ?? false
    }

    static func matches(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
        switch (actual, expected) {
        case let (.object(actual), .object(expected)):
            return expected.members.allSatisfy { has($0, in: actual) }
        case let (.array(actual), .array(expected)):
            return actual.count == expected.count && zip(actual, expected).allSatisfy(matches)
        case let (.number(actual), .number(expected)):
            return actual == expected || (Double(actual).map { $0 == Double(expected) } ?? false)
        default:
            return actual == expected
        }
    }
}
