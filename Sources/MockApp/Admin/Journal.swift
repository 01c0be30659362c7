import Foundation
import MockHTTP
import MockKit
import MockSupport

/// The last requests to the course APIs (and common 404s), newest first, for `/_mock/requests` and the index
/// page. An entry keeps at most 4 KiB of each body, 4 KiB of headers and 2 KiB of the reason, so it stays under
/// about 20 KiB whatever a client sends (the request line is at most 8 KiB); the JSON is written only when
/// someone asks, so the journal is cheap enough to leave on.
final class Journal: @unchecked Sendable {
    struct Entry {
        /// 1 for the first entry of this run, then one more for each; set when recorded, never reused
        /// (not even after a clear), so a reader can ask for what came after the newest it has seen.
        var id = 0
        var at: Date
        var api: String?
        var method: String
        var path: String
        var query = ""
        /// nil when no answer was sent (a connection reset or closed by an injected fault).
        var status: Int?
        var durationMilliseconds: Double = 0
        var requestBytes = 0
        var responseBytes = 0
        var headers = HTTPHeaders()
        /// Some header value was shortened or some fields left out to keep the entry small.
        var headersCut = false
        /// A body's first 4 KiB (`kept`): never a slice, which would keep the whole body alive.
        var bodyPrefix: [UInt8] = []
        var responseBodyPrefix: [UInt8] = []
        var reason: String?
        /// For the HAR export: the answer's reason phrase, its headers as the app set them (capped as
        /// the request's; `Date`, `Content-Length` and `Connection` are the transport's) and its body's size.
        var statusText = ""
        var responseHeaders = HTTPHeaders()
        var responseBodyBytes = 0
    }

    static let bodyPrefixLimit = 4096
    static let headerValueLimit = 1024
    static let headersLimit = 4096

    let capacity: Int
    /// Names this run of the server and, after a dash, how many clears it has seen: a reader whose
    /// cursor came from an earlier run (ids restart at 1) can tell, however quickly the restart
    /// happened, and so can a reader still showing entries a clear removed.
    var run: String { lock.locked { "\(runName)-\(clears)" } }

    private let runName = String(UInt64.random(in: 1...UInt64.max), radix: 16)
    private var clears = 0
    private let lock = NSLock()
    private var ring: [Entry] = []
    private var next = 0
    private var lastID = 0

    init(capacity: Int) {
        self.capacity = capacity
        ring.reserveCapacity(min(capacity, 1024))
    }

    func record(_ exchange: Exchange) {
        let request = exchange.request
        let (headers, headersCut) = Self.capped(request.headers)
        record(Entry(at: request.receivedAt, api: exchange.response.routeGroup, method: request.method, path: request.path,
                          query: request.query ?? "", status: exchange.sentStatus,
                          durationMilliseconds: exchange.durationMilliseconds, requestBytes: request.body.count,
                          responseBytes: exchange.responseBytes, headers: headers, headersCut: headersCut,
                          bodyPrefix: Self.kept(request.body),
                          responseBodyPrefix: request.method == "HEAD" ? [] : Self.kept(exchange.response.body),
                          reason: exchange.explanation.map(RequestLog.capped),
                          statusText: exchange.response.reasonPhrase, responseHeaders: Self.capped(exchange.response.headers).0,
                          responseBodyBytes: request.method == "HEAD" ? 0 : exchange.response.body.count))
    }

    /// The body itself when its storage is within `bodyPrefixLimit` (shared, not copied), else a copy of its start.
    private static func kept(_ body: [UInt8]) -> [UInt8] {
        body.capacity <= bodyPrefixLimit ? body : Array(body.prefix(bodyPrefixLimit))
    }

    /// Each value cut to `headerValueLimit` bytes, and fields kept while names and values fit in
    /// `headersLimit` (headers that fit are kept as they are): a client may send 64 KiB of headers,
    /// and the journal keeps 1000 entries.
    static func capped(_ headers: HTTPHeaders) -> (HTTPHeaders, cut: Bool) {
        var size = 0
        let fits = headers.allSatisfy { field in
            size += field.name.utf8.count + field.value.utf8.count
            return field.value.utf8.count <= headerValueLimit && size <= headersLimit
        }
        if fits { return (headers, false) }
        var kept = HTTPHeaders(), cut = false
        size = 0
        for field in headers {
            var value = field.value
            if value.utf8.count > headerValueLimit {
                value = String(decoding: value.utf8.prefix(headerValueLimit), as: UTF8.self)
                cut = true
            }
            size += field.name.utf8.count + value.utf8.count
            guard size <= headersLimit else { return (kept, true) }
            kept.add(field.name, value)
        }
        return (kept, cut)
    }

    func record(_ entry: Entry) {
        guard capacity > 0 else { return }
        var entry = entry
        lock.lock()
        defer { lock.unlock() }
        lastID += 1
        entry.id = lastID
        if ring.count < capacity {
            ring.append(entry)
        } else {
            ring[next] = entry
        }
        next = (next + 1) % capacity
    }

    /// Newest first, at most `limit` of those the filter keeps with an id above `after`, and how
    /// many it keeps in all.
    func entries(limit: Int, matching filter: Filter = Filter(), after: Int = 0) -> (entries: [Entry], matching: Int) {
        lock.lock()
        defer { lock.unlock() }
        let count = ring.count
        var ordered: [Entry] = [], matching = 0
        for offset in stride(from: 1, through: count, by: 1) {
            let entry = ring[(next - offset + count) % count]
            // Ids grow with age order, so the rest are older still.
            if entry.id <= after { break }
            guard filter.keeps(entry) else { continue }
            matching += 1
            if ordered.count < limit { ordered.append(entry) }
        }
        return (ordered, matching)
    }

    /// What `GET /_mock/requests` narrows the journal to: an api, a method, a path prefix, a status
    /// class (`4xx`) or status (`404`); each optional.
    struct Filter {
        var api: String?
        var method: String?
        var pathPrefix: String?
        var statuses: ClosedRange<Int>?
        /// Text the kept request body (its first 4 KiB) contains.
        var body: [UInt8]?

        /// From the query; nil when `status` is neither a class like `4xx` nor a status like `404`.
        init?(query: [(name: String, value: String)]) {
            api = FormDecoding.last("api", in: query)
            method = FormDecoding.last("method", in: query)?.uppercased()
            pathPrefix = FormDecoding.last("path", in: query)
            body = FormDecoding.last("body", in: query).map { Array($0.utf8) }
            if let status = FormDecoding.last("status", in: query)?.lowercased() {
                let digits = status.utf8.allSatisfy { (48...57).contains($0) }
                if status.count == 3, status.hasSuffix("xx"), let first = Int(status.prefix(1)), (1...5).contains(first) {
                    statuses = first * 100...(first * 100 + 99)
                } else if status.count == 3, digits, let exact = Int(status) {
                    statuses = exact...exact
                } else {
                    return nil
                }
            }
        }

        init() {}

        func keeps(_ entry: Entry) -> Bool {
            (api == nil || entry.api == api) && (method == nil || entry.method == method)
                && (pathPrefix.map(entry.path.hasPrefix) ?? true) && (statuses.map { range in entry.status.map(range.contains) ?? false } ?? true)
                && (body.map { $0.isEmpty || entry.bodyPrefix.firstRange(of: $0) != nil } ?? true)
        }
    }

    func clear() {
        lock.locked {
            ring.removeAll(keepingCapacity: true)
            next = 0
            clears += 1
        }
    }

    static func json(_ entries: [Entry]) -> [UInt8] {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginArray()
        for entry in entries {
            writer.beginObject()
            writer.key("id"); writer.int(entry.id)
            writer.key("at"); writer.string(ISO8601.format(entry.at))
            writer.key("api"); if let api = entry.api { writer.string(api) } else { writer.null() }
            writer.key("method"); writer.string(entry.method)
            writer.key("path"); writer.string(entry.path)
            writer.key("query"); writer.string(entry.query)
            writer.key("status"); if let status = entry.status { writer.int(status) } else { writer.null() }
            writer.key("duration_ms"); writer.double((entry.durationMilliseconds * 1000).rounded() / 1000)
            writer.key("request_bytes"); writer.int(entry.requestBytes)
            writer.key("response_bytes"); writer.int(entry.responseBytes)
            // One member per name, in lower case, with its values joined; found by a map, not a scan
            // per name (an entry may hold the parser's 256 headers).
            var headers: [(key: String, value: String)] = []
            var places: [String: Int] = [:]
            for field in entry.headers.fields {
                let name = field.name.lowercased()
                if let place = places[name] {
                    headers[place].value += ", " + field.value
                } else {
                    places[name] = headers.count
                    headers.append((key: name, value: field.value))
                }
            }
            writer.key("request_headers")
            writer.object(headers)
            if entry.headersCut { writer.key("request_headers_cut"); writer.bool(true) }
            for (key, prefix) in [("request_body", entry.bodyPrefix), ("response_body", entry.responseBodyPrefix)] {
                if writeBody(prefix, as: key, to: &writer) { writer.key(key + "_base64"); writer.bool(true) }
            }
            writer.key("reason"); if let reason = entry.reason { writer.string(reason) } else { writer.null() }
            writer.endObject()
        }
        writer.endArray()
        return writer.bytes
    }

    /// A kept body under `key`: as text when it is UTF-8, else in base64 (and true, for the caller to say so).
    static func writeBody(_ prefix: [UInt8], as key: String, to writer: inout JSONWriter) -> Bool {
        writer.key(key)
        guard let text = String(validUTF8: prefix) else {
            writer.string(Data(prefix).base64EncodedString())
            return true
        }
        writer.string(text)
        return false
    }
}
