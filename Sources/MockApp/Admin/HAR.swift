import Foundation
import MockHTTP
import MockSupport

/// The journal as an HTTP Archive (HAR 1.2) for browsers' developer tools, Charles, Proxyman and
/// Postman (docs/admin.md#the-journal-as-har), oldest entry first. Bodies are the journal's first
/// 4 KiB with the whole body's sizes; TLS attempts are left out: no HTTP request was read.
enum HAR {
    static func document(_ entries: [Journal.Entry], version: String) -> [UInt8] {
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        writer.key("log")
        writer.beginObject()
        writer.key("version"); writer.string("1.2")
        writer.key("creator")
        writer.object([("name", "mock-backend"), ("version", version)])
        writer.key("entries")
        writer.beginArray()
        for entry in entries.reversed() where entry.method != "TLS" { write(entry, to: &writer) }
        writer.endArray()
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    private static func write(_ entry: Journal.Entry, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("startedDateTime"); writer.string(ISO8601.format(entry.at))
        let time = (entry.durationMilliseconds * 1000).rounded() / 1000
        writer.key("time"); writer.double(time)
        writer.key("request")
        writer.beginObject()
        writer.key("method"); writer.string(entry.method)
        let host = entry.headers["Host"] ?? "localhost"
        writer.key("url"); writer.string("http://\(host)\(entry.path)" + (entry.query.isEmpty ? "" : "?\(entry.query)"))
        writeHeaders(entry.headers, to: &writer)
        writer.key("queryString")
        writer.beginArray()
        for pair in FormDecoding.pairs(Array(entry.query.utf8), malformed: .keepLiteral) { writePair(pair.name, pair.value, to: &writer) }
        writer.endArray()
        if entry.requestBytes > 0 {
            writer.key("postData")
            writer.beginObject()
            writer.key("mimeType"); writer.string(entry.headers["Content-Type"] ?? "application/octet-stream")
            writeText(entry.bodyPrefix, size: entry.requestBytes, encodingKey: "_encoding", to: &writer)
            writer.endObject()
        }
        writer.key("headersSize"); writer.int(-1)
        writer.key("bodySize"); writer.int(entry.requestBytes)
        writer.endObject()

        writer.key("response")
        writer.beginObject()
        // No answer (a reset or closed connection): status 0, as browsers record a failed request.
        writer.key("status"); writer.int(entry.status ?? 0)
        writer.key("statusText"); writer.string(entry.status == nil ? "" : entry.statusText)
        writeHeaders(entry.responseHeaders, to: &writer)
        writer.key("content")
        writer.beginObject()
        writer.key("size"); writer.int(entry.responseBodyBytes)
        writer.key("mimeType"); writer.string(entry.responseHeaders["Content-Type"] ?? "")
        if entry.responseBodyBytes > 0 {
            writeText(entry.responseBodyPrefix, size: entry.responseBodyBytes, encodingKey: "encoding", to: &writer)
        }
        writer.endObject()
        writer.key("redirectURL"); writer.string(entry.responseHeaders["Location"] ?? "")
        writer.key("headersSize"); writer.int(-1)
        writer.key("bodySize"); writer.int(entry.status == nil ? -1 : entry.responseBodyBytes)
        writer.endObject()

        writer.key("cache"); writer.beginObject(); writer.endObject()
        writer.key("timings")
        writer.beginObject()
        writer.key("send"); writer.int(0)
        writer.key("wait"); writer.double(time)
        writer.key("receive"); writer.int(0)
        writer.endObject()
        if let reason = entry.reason { writer.key("comment"); writer.string(reason) }
        writer.endObject()
    }

    /// What a request and a response both go on with: the version, no cookies, the headers.
    private static func writeHeaders(_ headers: HTTPHeaders, to writer: inout JSONWriter) {
        writer.key("httpVersion"); writer.string("HTTP/1.1")
        writer.key("cookies"); writer.beginArray(); writer.endArray()
        writer.key("headers")
        writer.beginArray()
        for field in headers { writePair(field.name, field.value, to: &writer) }
        writer.endArray()
    }

    private static func writePair(_ name: String, _ value: String, to writer: inout JSONWriter) {
        writer.object([("name", name), ("value", value)])
    }

    /// `"text"` as UTF-8, or base64 with `encodingKey` (`encoding` in `content`; `postData` has no
    /// such field in HAR 1.2, so a custom `_encoding`); a `comment` when the journal kept only a prefix.
    private static func writeText(_ prefix: [UInt8], size: Int, encodingKey: String, to writer: inout JSONWriter) {
        if Journal.writeBody(prefix, as: "text", to: &writer) { writer.key(encodingKey); writer.string("base64") }
        if prefix.count < size {
            writer.key("comment"); writer.string("the first \(prefix.count) of \(size) bytes (the journal keeps 4 KiB of each body)")
        }
    }
}
