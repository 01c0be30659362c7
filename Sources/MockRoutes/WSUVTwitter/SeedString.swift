import Foundation
import MockKit

/// The UTF-8 of a JSON string in a seed document, read where it lies: `SeedReader.string()`
/// makes a `String` (allocated when over 15 bytes) that a row would only copy or look up.
enum SeedString {
    /// Calls `body` with the decoded UTF-8 of the string `value` is at. A string without escapes
    /// is its bytes in `document` (the text `value` reads), checked afterwards as `value` is
    /// skipped; one with escapes, or anything else, goes through `value.string()`, which decodes
    /// it or names the problem.
    static func withUTF8<Result>(of value: inout SeedReader, in document: UnsafeBufferPointer<UInt8>,
                                 _ body: (UnsafeBufferPointer<UInt8>) -> Result) throws(SeedError) -> Result {
        let start = value.offset + 1
        if start <= document.count, document[start - 1] == UInt8(ascii: "\""), let base = document.baseAddress,
           let quote = memchr(base + start, Int32(UInt8(ascii: "\"")), document.count - start) {
            let length = UnsafePointer<UInt8>(quote.assumingMemoryBound(to: UInt8.self)) - (base + start)
            if memchr(base + start, Int32(UInt8(ascii: "\\")), length) == nil {
                return body(UnsafeBufferPointer(start: base + start, count: length))
            }
        }
        var decoded = try value.string()
        return decoded.withUTF8(body)
    }

    /// What `parse` makes of the string `value` is at; when it makes nothing, the error
    /// `problem` words for the string.
    static func parse<Parsed>(_ value: inout SeedReader, in document: UnsafeBufferPointer<UInt8>,
                              _ parse: (UnsafeBufferPointer<UInt8>) -> Parsed?,
                              else problem: (String) -> String) throws(SeedError) -> Parsed {
        var rejected = ""
        let parsed = try withUTF8(of: &value, in: document) { utf8 in
            let parsed = parse(utf8)
            if parsed == nil { rejected = String(decoding: utf8, as: UTF8.self) }
            return parsed
        }
        guard let parsed else { throw value.fail(problem(rejected)) }
        return parsed
    }
}
