import Foundation
import MockSupport
import XCTest
@testable import MockHTTP

private func pairs(_ s: String, _ malformed: MalformedEscape) -> [String] {
    FormDecoding.pairs(Array(s.utf8), malformed: malformed).map { "\($0.name)=\($0.value)" }
}

final class FormDecodingTests: XCTestCase {
    func testRepeatedNamesKeepOrder() {
        let decoded = FormDecoding.pairs(Array("a=1&b=x&a=2".utf8), malformed: .keepLiteral)
        XCTAssertEqual(decoded.map(\.name), ["a", "b", "a"])
        XCTAssertEqual(decoded.map(\.value), ["1", "x", "2"])
        XCTAssertEqual(FormDecoding.last("a", in: decoded), "2")
    }

    func testPlusPercentAndUTF8() {
        for mode in [MalformedEscape.keepLiteral, .dropPair] {
            XCTAssertEqual(pairs("q=a+b%2Bc&sp%20ace=%3D%26", mode), ["q=a b+c", "sp ace==&"])
            XCTAssertEqual(pairs("n=%C3%A9&m=%c3%a9", mode), ["n=é", "m=é"])
            XCTAssertEqual(pairs("k&v=&=x&a==b", mode), ["k=", "v=", "=x", "a==b"])
            XCTAssertEqual(pairs("&&a=1&&", mode), ["a=1"])
            XCTAssertEqual(pairs("a=1;b=2", mode), ["a=1;b=2"])
            XCTAssertEqual(pairs("", mode), [])
        }
    }

    func testMalformedEscapeKeptLiterally() {
        XCTAssertEqual(pairs("x=%zz&y=1&z=%4&w=%&%g=v", .keepLiteral), ["x=%zz", "y=1", "z=%4", "w=%", "%g=v"])
        XCTAssertEqual(pairs("n=%FF&m=a%C3", .keepLiteral), ["n=\u{FFFD}", "m=a\u{FFFD}"])
    }

    func testMalformedEscapeDropsPair() {
        XCTAssertEqual(pairs("x=%zz&y=1&z=%4&w=%&%g=v", .dropPair), ["y=1"])
        XCTAssertEqual(pairs("n=%FF&ok=1&m=a%C3&%FF=v", .dropPair), ["ok=1"])
    }

    /// Our stand-in for the standard library's validating initializer (macOS 15+) rejects exactly what the standard requires.
    func testValidUTF8() {
        XCTAssertEqual(String(validUTF8: Array("plain / ascii".utf8)), "plain / ascii")
        XCTAssertEqual(String(validUTF8: [0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80]), "é€😀")
        XCTAssertEqual(String(validUTF8: [UInt8]()), "")
        for invalid: [UInt8] in [[0xFF], [0x80], [0x61, 0xC3], [0xC0, 0xAF], [0xE0, 0x80, 0xAF],
                                 [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98]] {
            XCTAssertNil(String(validUTF8: invalid), "\(invalid)")
        }
    }

    func testPercentDecode() {
        XCTAssertEqual(FormDecoding.percentDecode("/a%20b/%C3%A9", plusAsSpace: false), "/a b/é")
        XCTAssertEqual(FormDecoding.percentDecode("a+b", plusAsSpace: false), "a+b")
        XCTAssertEqual(FormDecoding.percentDecode("a+b", plusAsSpace: true), "a b")
        XCTAssertEqual(FormDecoding.percentDecode("%2f%2F", plusAsSpace: false), "//")
        XCTAssertEqual(FormDecoding.percentDecode("", plusAsSpace: false), "")
        XCTAssertNil(FormDecoding.percentDecode("%zz", plusAsSpace: false))
        XCTAssertNil(FormDecoding.percentDecode("abc%", plusAsSpace: false))
        XCTAssertNil(FormDecoding.percentDecode("%FF", plusAsSpace: false))
        XCTAssertNil(FormDecoding.percentDecode("%ED%A0%80", plusAsSpace: false))
    }
}

final class MultipartTests: XCTestCase {
    private let postmanBoundary = "--------------------------947312546238123547081216"
    private let pngBytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0x2D, 0x2D, 0x0D, 0x0A]

    /// Builds a body from lines joined by `lineEnd`, with `file` spliced in for "<file>".
    private func body(_ lines: [String], lineEnd: String = "\r\n", file: [UInt8] = []) -> [UInt8] {
        var out: [UInt8] = []
        for (i, line) in lines.enumerated() {
            if i > 0 { out += Array(lineEnd.utf8) }
            out += line == "<file>" ? file : Array(line.utf8)
        }
        return out
    }

    private func postmanBody(lineEnd: String = "\r\n") -> [UInt8] {
        let b = "--" + postmanBoundary
        return body([
            b,
            #"Content-Disposition: form-data; name="username""#,
            "",
            "alice",
            b,
            #"Content-Disposition: form-data; name="note""#,
            "",
            "line one",
            "line two",
            b,
            #"Content-Disposition: form-data; name="avatar"; filename="me.png""#,
            "Content-Type: image/png",
            "",
            "<file>",
            b + "--",
            "",
        ], lineEnd: lineEnd, file: pngBytes)
    }

    func testBoundaryFromContentType() {
        XCTAssertEqual(Multipart.boundary(fromContentType: "multipart/form-data; boundary=" + postmanBoundary), postmanBoundary)
        XCTAssertEqual(Multipart.boundary(fromContentType: #"Multipart/Form-Data; charset=utf-8; BOUNDARY="a b:c""#), "a b:c")
        XCTAssertEqual(Multipart.boundary(fromContentType: "multipart/form-data;boundary=xyz ; other=1"), "xyz")
        XCTAssertNil(Multipart.boundary(fromContentType: "multipart/form-data"))
        XCTAssertNil(Multipart.boundary(fromContentType: "text/plain; boundary=xyz"))
        XCTAssertNil(Multipart.boundary(fromContentType: #"multipart/form-data; boundary="""#))
        XCTAssertNil(Multipart.boundary(fromContentType: #"multipart/form-data; boundary="open"#))
        XCTAssertNil(Multipart.boundary(fromContentType: "multipart/form-data; boundary=" + String(repeating: "x", count: 71)))
    }

    func testPostmanStyleBody() throws {
        let parts = try XCTUnwrap(Multipart.parse(postmanBody(), boundary: postmanBoundary))
        XCTAssertEqual(parts, [
            MultipartPart(name: "username", body: Array("alice".utf8)),
            MultipartPart(name: "note", body: Array("line one\r\nline two".utf8)),
            MultipartPart(name: "avatar", filename: "me.png", contentType: "image/png", body: pngBytes),
        ])
    }

    func testBareLineFeeds() throws {
        let parts = try XCTUnwrap(Multipart.parse(postmanBody(lineEnd: "\n"), boundary: postmanBoundary))
        XCTAssertEqual(parts.map(\.name), ["username", "note", "avatar"])
        XCTAssertEqual(parts[1].body, Array("line one\nline two".utf8))
        XCTAssertEqual(parts[2].body, pngBytes)
        XCTAssertEqual(parts[2].filename, "me.png")
    }

    func testQuotedBoundaryPreambleEpilogueAndTokenParameters() throws {
        let contentType = #"multipart/form-data; boundary="weird b:o=u'n(d)""#
        let boundary = try XCTUnwrap(Multipart.boundary(fromContentType: contentType))
        XCTAssertEqual(boundary, "weird b:o=u'n(d)")
        let parts = try XCTUnwrap(Multipart.parse(body([
            "This is a preamble.",
            "--" + boundary + "  ",
            "content-disposition: FORM-DATA; NAME=plain;filename=\"a\\\"b.txt\"",
            "Content-Type:  text/plain ",
            "",
            "not a delimiter: --" + boundary,
            "--" + boundary + "x is not one either",
            "",
            "--" + boundary,
            #"Content-Disposition: form-data; name="empty"; filename="""#,
            "",
            "",
            "--" + boundary + "--",
            "epilogue with --" + boundary,
        ]), boundary: boundary))
        XCTAssertEqual(parts, [
            MultipartPart(name: "plain", filename: "a\"b.txt", contentType: "text/plain",
                          body: Array(("not a delimiter: --" + boundary + "\r\n--" + boundary + "x is not one either\r\n").utf8)),
            MultipartPart(name: "empty", filename: "", body: []),
        ])
    }

    func testEmptyForm() {
        XCTAssertEqual(Multipart.parse(Array("--b--\r\n".utf8), boundary: "b"), [])
    }

    func testRejectedBodies() {
        let b = "--" + postmanBoundary
        let unclosed = body([b, #"Content-Disposition: form-data; name="a""#, "", "x", ""])
        XCTAssertNil(Multipart.parse(unclosed, boundary: postmanBoundary))
        XCTAssertNil(Multipart.parse(Array(postmanBody().dropLast(4)), boundary: postmanBoundary))
        XCTAssertNil(Multipart.parse(Array("junk that is not multipart at all".utf8), boundary: postmanBoundary))
        XCTAssertNil(Multipart.parse([], boundary: postmanBoundary))
        XCTAssertNil(Multipart.parse(postmanBody(), boundary: "other"))
        XCTAssertNil(Multipart.parse(postmanBody(), boundary: ""))
        // A part needs Content-Disposition: form-data with a name.
        XCTAssertNil(Multipart.parse(body([b, "Content-Type: text/plain", "", "x", b + "--"]), boundary: postmanBoundary))
        XCTAssertNil(Multipart.parse(body([b, #"Content-Disposition: form-data; filename="f""#, "", "x", b + "--"]),
                                     boundary: postmanBoundary))
        XCTAssertNil(Multipart.parse(body([b, #"Content-Disposition: attachment; name="a""#, "", "x", b + "--"]),
                                     boundary: postmanBoundary))
        XCTAssertNil(Multipart.parse(body([b, #"Content-Disposition: form-data; name="a"#, "", "x", b + "--"]),
                                     boundary: postmanBoundary))
        XCTAssertNil(Multipart.parse(body([b, "no colon here", "", "x", b + "--"]), boundary: postmanBoundary))
    }

    func testLargeHostileBodiesAreRejected() {
        let boundary = String(repeating: "-", count: 68) + "xy"
        // Nearly-delimiters on every line and a body of dashes: naive searches go quadratic here.
        let nearMiss = Array(("\n--" + String(repeating: "-", count: 68) + "x").utf8)
        var junk: [UInt8] = []
        while junk.count < 16 << 20 { junk += nearMiss }
        XCTAssertNil(Multipart.parse(junk, boundary: boundary))
        XCTAssertNil(Multipart.parse([UInt8](repeating: UInt8(ascii: "-"), count: 4 << 20), boundary: boundary))
        XCTAssertNil(Multipart.parse([UInt8](repeating: 0x0A, count: 4 << 20), boundary: boundary))
    }
}

final class BodyRobustnessTests: XCTestCase {
    /// Random bytes from a small alphabet rich in delimiters must never crash the decoders.
    func testRandomInputsAreHandled() {
        let alphabet = Array("--b\r\n:;=\"%+&aF9 ".utf8) + [0x80, 0xC3, 0xFF]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let input = (0..<Int.random(in: 0...80, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let parts = Multipart.parse(input, boundary: "b") ?? []
            XCTAssertLessThanOrEqual(parts.reduce(0) { $0 + $1.body.count }, input.count)
            let kept = FormDecoding.pairs(input, malformed: .keepLiteral)
            let dropped = FormDecoding.pairs(input, malformed: .dropPair)
            XCTAssertLessThanOrEqual(dropped.count, kept.count)
            _ = Multipart.boundary(fromContentType: String(decoding: input, as: UTF8.self))
        }
    }
}
