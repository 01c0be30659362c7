import Foundation
import MockHTTP
import MockKit
import MockSupport

/// Injected faults (`/_mock/faults`): slow answers, errors and broken connections on demand, so a
/// class sees how its app copes. A request gets the first rule that applies to it, or none.
struct Faults: Sendable {
    var rules: [FaultRule] = []
    /// The rules came as an array, and are shown as one.
    var listed = false

    func rule(for api: String, method: String, path: String) -> FaultRule? {
        rules.first { $0.applies(to: api, method: method, path: path) }
    }

    /// The first rule that applies to a request, and what the request draws from it; the rule
    /// counts the requests it met, for `error_every`.
    mutating func draw(for api: String, method: String, path: String) -> (rule: FaultRule, draw: FaultRule.Draw)? {
        guard let index = rules.firstIndex(where: { $0.applies(to: api, method: method, path: path) }) else { return nil }
        rules[index].requestsMet += 1
        return (rules[index], rules[index].draw())
    }

    struct Invalid: Error {
        var detail: String
    }

    init() {}

    init(document: JSONValue, served: [String]) throws(Invalid) {
        switch document {
        case let .array(items):
            listed = true
            for (index, item) in items.enumerated() {
                do throws(Invalid) {
                    rules.append(try FaultRule(document: item, served: served))
                } catch {
                    throw Invalid(detail: "rule \(index): \(error.detail)")
                }
            }
        default:
            rules = [try FaultRule(document: document, served: served)]
        }
    }

    var json: [UInt8] {
        if !listed { return rules.first?.json ?? Array("{}".utf8) }
        return Array("[".utf8) + rules.map(\.json).joined(separator: Array(",".utf8)) + Array("]".utf8)
    }

    static func delay(in range: ClosedRange<Double>) -> Double {
        (range.lowerBound == range.upperBound ? range.lowerBound : Double.random(in: range)) / 1000
    }
}

/// One fault rule: where it applies (APIs, routes) and what it does, each fault with its own rate.
struct FaultRule: Sendable {
    /// Milliseconds.
    var latency: ClosedRange<Double>?
    var errorRate: Double?
    /// Every n-th request the rule meets gets the error: a demo that always shows it.
    var errorEvery: Int?
    var errorStatus: Int?
    /// Requests this rule applied to since it was set.
    var requestsMet = 0
    /// Connection faults, drawn in this order; the first that hits is the one applied.
    var resetRate: Double?
    var closeRate: Double?
    var truncateRate: Double?
    var slowRate: Double?
    var slowBytesPerSecond: Int?
    /// nil: every served API.
    var apis: [String]?
    /// nil: every route; otherwise `METHOD /path/{param}` patterns (`*` for any method).
    var routes: [RoutePattern]?

    struct Draw {
        var errorStatus: Int?
        var connectionFault: ConnectionFault?
        /// For the journal and the console: which faults, and the rule fields that drew them.
        var note: String?
    }

    func applies(to api: String, method: String, path: String) -> Bool {
        (apis?.contains(api) ?? true) && (routes?.contains { $0.matches(method: method, path: path) } ?? true)
    }

    func draw() -> Draw {
        var draw = Draw()
        var notes: [String] = []
        func hits(_ rate: Double?) -> Bool { rate.map { Double.random(in: 0..<1) < $0 } ?? false }
        if hits(errorRate) {
            draw.errorStatus = errorStatus ?? 503
            notes.append("\(draw.errorStatus!) (error_rate \(Self.format(errorRate!)))")
        } else if let errorEvery, requestsMet % errorEvery == 0 {
            draw.errorStatus = errorStatus ?? 503
            notes.append("\(draw.errorStatus!) (error_every \(errorEvery): request \(requestsMet) of this rule)")
        }
        let slow = slowBytesPerSecond ?? Self.defaultSlowBytesPerSecond
        let connectionFaults: [(rate: Double?, field: String, fault: ConnectionFault, note: String)] = [
            (resetRate, "reset_rate", .reset, "connection reset before the answer"),
            (closeRate, "close_rate", .close, "connection closed with no answer"),
            (truncateRate, "truncate_rate", .truncate, "answer cut short"),
            (slowRate, "slow_rate", .slowBody(bytesPerSecond: slow), "body sent at \(slow) bytes/s"),
        ]
        if let hit = connectionFaults.first(where: { hits($0.rate) }) {
            draw.connectionFault = hit.fault
            notes.append("\(hit.note) (\(hit.field) \(Self.format(hit.rate!)))")
        }
        if !notes.isEmpty {
            let scope = routes.map { " on " + $0.map(\.text).joined(separator: ", ") } ?? ""
            draw.note = notes.joined(separator: "; ") + scope
        }
        return draw
    }

    static let defaultSlowBytesPerSecond = 100

    private static func format(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(rate)
    }

    private static let fields = ["latency_ms", "error_rate", "error_every", "error_status", "reset_rate", "close_rate", "truncate_rate",
                                 "slow_rate", "slow_bytes_per_s", "apis", "routes"]

    init(document: JSONValue, served: [String]) throws(Faults.Invalid) {
        guard case let .object(object) = document else { throw Faults.Invalid(detail: "expected a JSON object") }
        for key in object.keys where !Self.fields.contains(key) {
            throw Faults.Invalid(detail: "unknown field \(key)")
        }
        func rate(_ field: String) throws(Faults.Invalid) -> Double? {
            guard let value = object[field] else { return nil }
            guard let rate = value.doubleValue, (0...1).contains(rate) else {
                throw Faults.Invalid(detail: "\(field) must be from 0 to 1")
            }
            return rate
        }
        if let value = object["latency_ms"] {
            let bounds: [Double]
            if let single = value.doubleValue {
                bounds = [single, single]
            } else if let items = value.arrayValue, items.count == 2, let low = items[0].doubleValue, let high = items[1].doubleValue {
                bounds = [low, high]
            } else {
                throw Faults.Invalid(detail: "latency_ms must be [min,max] milliseconds")
            }
            guard bounds[0] >= 0, bounds[1] >= bounds[0], bounds[1] <= 600_000 else {
                throw Faults.Invalid(detail: "latency_ms must satisfy 0 <= min <= max <= 600000")
            }
            latency = bounds[0]...bounds[1]
        }
        /// A setting that goes with a rate: given alone, it hits every request; the rate alone
        /// takes the setting's default.
        func setting(_ field: String, of rateField: String, in range: ClosedRange<Int>, default fallback: Int,
                     _ detail: String) throws(Faults.Invalid) -> (rate: Double?, value: Int?) {
            var drawn = try rate(rateField)
            var value: Int?
            if let given = object[field] {
                guard let number = given.intValue, range.contains(number) else { throw Faults.Invalid(detail: "\(field) must be \(detail)") }
                value = number
                drawn = drawn ?? 1.0
            }
            return drawn == nil ? (nil, nil) : (drawn, value ?? fallback)
        }
        (errorRate, errorStatus) = try setting("error_status", of: "error_rate", in: 400...599, default: 503,
                                               "an HTTP error status (400-599)")
        if let value = object["error_every"] {
            guard let every = value.intValue, (1...1_000_000).contains(every) else {
                throw Faults.Invalid(detail: "error_every must be a whole number from 1 to 1000000 (5: every fifth request fails)")
            }
            guard object["error_rate"] == nil else {
                throw Faults.Invalid(detail: "error_rate and error_every do not go together: give one of them")
            }
            errorEvery = every
            errorRate = nil
            errorStatus = errorStatus ?? 503
        }
        resetRate = try rate("reset_rate")
        closeRate = try rate("close_rate")
        truncateRate = try rate("truncate_rate")
        (slowRate, slowBytesPerSecond) = try setting("slow_bytes_per_s", of: "slow_rate", in: 1...1_000_000_000,
                                                     default: Self.defaultSlowBytesPerSecond,
                                                     "a whole number of bytes per second, at least 1")
        func strings(_ field: String, _ detail: String, orNone: Bool = true) throws(Faults.Invalid) -> [String]? {
            guard let value = object[field] else { return nil }
            guard let items = value.arrayValue, let texts = Optional(items.compactMap(\.stringValue)), texts.count == items.count,
                  orNone || !texts.isEmpty else { throw Faults.Invalid(detail: "\(field) must be \(detail)") }
            return texts
        }
        if let names = try strings("apis", "an array of API names") {
            for name in names where !served.contains(name) { throw Faults.Invalid(detail: "unknown or not served api \(name)") }
            apis = names
        }
        if let texts = try strings("routes", "an array of \"METHOD /path\" strings", orNone: false) {
            if let text = texts.first(where: { RoutePattern($0) == nil }) {
                throw Faults.Invalid(detail: "routes: \(text) is not METHOD /path "
                                         + "(e.g. \"GET /api/thread/{id}\" or \"* /login\")")
            }
            routes = texts.compactMap(RoutePattern.init)
        }
    }

    var json: [UInt8] {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        if let latency {
            writer.key("latency_ms"); writer.beginArray(); writer.double(latency.lowerBound); writer.double(latency.upperBound); writer.endArray()
        }
        if let errorRate { writer.key("error_rate"); writer.double(errorRate) }
        if let errorEvery { writer.member("error_every", errorEvery) }
        if let errorStatus { writer.member("error_status", errorStatus) }
        for (field, rate) in [("reset_rate", resetRate), ("close_rate", closeRate), ("truncate_rate", truncateRate),
                              ("slow_rate", slowRate)] {
            if let rate { writer.key(field); writer.double(rate) }
        }
        if let slowBytesPerSecond { writer.member("slow_bytes_per_s", slowBytesPerSecond) }
        if let apis { writer.member("apis", apis) }
        if let routes { writer.member("routes", routes.map(\.text)) }
        writer.endObject()
        return writer.bytes
    }
}

extension RoutePattern {
    /// A fault rule's `GET /api/thread/{id}` or `* /login`: `{name}` segments only.
    init?(_ text: String) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[1].hasPrefix("/") else { return nil }
        let method = parts[0] == "*" ? nil : String(parts[0]).uppercased()
        self.init(method: method, path: .segments(PathTemplate(String(parts[1]))))
    }
}
