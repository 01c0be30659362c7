import Foundation
import MockHTTP
import MockKit

/// Injected faults (`/_mock/faults`) and `--latency`: slow answers and errors on demand, so a class
/// can see how their app copes with a bad network or a failing server.
struct Faults: Equatable, Sendable {
    /// Milliseconds, fixed when both ends are equal.
    var latency: ClosedRange<Double>?
    var errorRate: Double?
    var errorStatus: Int?
    /// nil: every served API.
    var apis: [String]?

    var isEmpty: Bool { latency == nil && errorRate == nil }

    func applies(to api: String) -> Bool { apis?.contains(api) ?? true }

    /// The status of an injected error for this request, or nil to run the handler.
    func drawError() -> Int? {
        guard let rate = errorRate, Double.random(in: 0..<1) < rate else { return nil }
        return errorStatus ?? 503
    }

    static func delay(in range: ClosedRange<Double>) -> Double {
        (range.lowerBound == range.upperBound ? range.lowerBound : Double.random(in: range)) / 1000
    }

    struct Invalid: Error {
        var detail: String
    }

    /// Reads a `PUT /_mock/faults` document; each field optional.
    init(document: JSONValue, served: [String]) throws(Invalid) {
        guard case let .object(object) = document else { throw Invalid(detail: "expected a JSON object") }
        for key in object.keys where !["latency_ms", "error_rate", "error_status", "apis"].contains(key) {
            throw Invalid(detail: "unknown field \(key)")
        }
        if let value = object["latency_ms"] {
            let bounds: [Double]
            if let single = value.doubleValue {
                bounds = [single, single]
            } else if let items = value.arrayValue, items.count == 2, let low = items[0].doubleValue, let high = items[1].doubleValue {
                bounds = [low, high]
            } else {
                throw Invalid(detail: "latency_ms must be [min,max] milliseconds")
            }
            guard bounds[0] >= 0, bounds[1] >= bounds[0], bounds[1] <= 600_000 else {
                throw Invalid(detail: "latency_ms must satisfy 0 <= min <= max <= 600000")
            }
            latency = bounds[0]...bounds[1]
        }
        if let value = object["error_rate"] {
            guard let rate = value.doubleValue, (0...1).contains(rate) else { throw Invalid(detail: "error_rate must be from 0 to 1") }
            errorRate = rate
        }
        if let value = object["error_status"] {
            guard let status = value.intValue, (400...599).contains(status) else {
                throw Invalid(detail: "error_status must be an HTTP error status (400-599)")
            }
            errorStatus = status
            errorRate = errorRate ?? 1.0
        }
        if errorRate != nil { errorStatus = errorStatus ?? 503 }
        if let value = object["apis"] {
            guard let items = value.arrayValue, let names = Optional(items.compactMap(\.stringValue)), names.count == items.count else {
                throw Invalid(detail: "apis must be an array of API names")
            }
            for name in names where !served.contains(name) { throw Invalid(detail: "unknown or not served api \(name)") }
            apis = names
        }
    }

    init(latency: ClosedRange<Double>? = nil) {
        self.latency = latency
    }

    var json: [UInt8] {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        if let latency {
            writer.key("latency_ms"); writer.beginArray(); writer.double(latency.lowerBound); writer.double(latency.upperBound); writer.endArray()
        }
        if let errorRate { writer.key("error_rate"); writer.double(errorRate) }
        if let errorStatus { writer.key("error_status"); writer.int(errorStatus) }
        if let apis { writer.key("apis"); writer.beginArray(); for api in apis { writer.string(api) }; writer.endArray() }
        writer.endObject()
        return writer.bytes
    }
}
