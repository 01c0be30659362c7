import Foundation
import XCTest
@testable import MockSupport

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

private func parse(_ s: String, maxDepth: Int = 128) throws(JSONParseError) -> JSONValue {
    try JSONParser.parse(Array(s.utf8), maxDepth: maxDepth)
}

private struct Status: Encodable {
    var status: String
    var id: Int
    var s: String
}

private struct Wide: Encodable {
    var zeta = "z"
    var alpha = 1
    var mike: Double = 2.5
    var bravo = true
    var yankee: String? = "y"
    var charlie: [Int] = [3, 2, 1]
    var xray: Int? = nil
    var delta = "d"
    var whiskey: UInt8 = 7
    var echo: Float = 0.1
}

private struct Address: Encodable {
    var street: String
    var zip: String?
}

private struct Person: Encodable {
    var name: String
    var age: Int?
    var addresses: [Address]
    var tags: [String: Int]
    var extra: JSONValue
}

/// Hand-written encode(to:) exercising explicit nil, nested containers and superEncoder.
private struct Manual: Encodable {
    enum Keys: String, CodingKey { case first, missing, nested, list, again }
    enum Inner: String, CodingKey { case x, y }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode("one", forKey: .first)
        try c.encodeNil(forKey: .missing)
        var nested = c.nestedContainer(keyedBy: Inner.self, forKey: .nested)
        try nested.encode(1, forKey: .y)
        try nested.encode(2, forKey: .x)
        var list = c.nestedUnkeyedContainer(forKey: .list)
        try list.encode(true)
        try list.encodeNil()
        var inner = list.nestedContainer(keyedBy: Inner.self)
        try inner.encode("deep", forKey: .x)
        try list.encode(4)
        try "sup".encode(to: c.superEncoder())
        try c.encode(2, forKey: .again)
        try c.encode(3, forKey: .first)  // streamed: a repeated key is written again
    }
}

/// Uses a nested container after writing to its parent, which a streaming encoder refuses.
private struct LateNested: Encodable {
    enum Keys: String, CodingKey { case nested, again, refused }
    enum Inner: String, CodingKey { case x }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        var nested = c.nestedContainer(keyedBy: Inner.self, forKey: .nested)
        try c.encode(2, forKey: .again)
        do {
            try nested.encode(1, forKey: .x)
        } catch is EncodingError {
            try c.encode(true, forKey: .refused)
        }
        var single = c.superEncoder().singleValueContainer()
        try single.encode(1)
        try single.encode(2)  // a second value for the same position throws out of here
    }
}

private class Base: Encodable {
    enum Keys: String, CodingKey { case base }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(1, forKey: .base)
    }
}

private final class Derived: Base {
    enum Keys: String, CodingKey { case derived }
    override func encode(to encoder: any Encoder) throws {
        try super.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(2, forKey: .derived)
    }
}

private struct Silent: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

final class JSONWriterTests: XCTestCase {
    func testStatusWithAndWithoutSlashEscaping() {
        let value = Status(status: "ok", id: 2, s: "a/b")
        XCTAssertEqual(text(OrderedJSON.encode(value, escapeSlash: true)), #"{"status":"ok","id":2,"s":"a\/b"}"#)
        XCTAssertEqual(text(OrderedJSON.encode(value, escapeSlash: false)), #"{"status":"ok","id":2,"s":"a/b"}"#)

        var w = JSONWriter(escapeSlash: true)
        w.beginObject()
        w.key("status"); w.string("ok")
        w.key("id"); w.int(2)
        w.key("s"); w.string("a/b")
        w.endObject()
        XCTAssertEqual(text(w.bytes), #"{"status":"ok","id":2,"s":"a\/b"}"#)
    }

    /// Every escape, at the start, the middle and the end of a string, around plain runs and raw UTF-8.
    func testStringEscapes() {
        let raw = "\"a\\b/c\nd\re\tf\u{08}g\u{0C}h\u{01}i\u{1F}é/"
        var slashed = JSONWriter(escapeSlash: true)
        slashed.string(raw)
        XCTAssertEqual(text(slashed.bytes), #""\"a\\b\/c\nd\re\tf\bg\fh\u0001i\u001fé\/""#)
        var plain = JSONWriter(escapeSlash: false)
        plain.string(raw)
        XCTAssertEqual(text(plain.bytes), #""\"a\\b/c\nd\re\tf\bg\fh\u0001i\u001fé/""#)
    }

    func testDeclarationOrderIsStable() {
        let expected = #"{"zeta":"z","alpha":1,"mike":2.5,"bravo":true,"yankee":"y","charlie":[3,2,1],"delta":"d","whiskey":7,"echo":0.1}"#
        for _ in 0..<50 {
            XCTAssertEqual(text(OrderedJSON.encode(Wide(), escapeSlash: false)), expected)
        }
    }

    func testNestedStructsArraysNilOmittedAndVerbatimJSONValue() throws {
        let extra = try parse(#"{"price":1.50,"big":-1e400,"list":[2.0,null]}"#)
        let person = Person(name: "Ann", age: nil,
                            addresses: [Address(street: "Main 1", zip: "12345"), Address(street: "Side", zip: nil)],
                            tags: ["k": 1], extra: extra)
        XCTAssertEqual(text(OrderedJSON.encode(person, escapeSlash: false)),
                       #"{"name":"Ann","addresses":[{"street":"Main 1","zip":"12345"},{"street":"Side"}],"#
                       + #""tags":{"k":1},"extra":{"price":1.50,"big":-1e400,"list":[2.0,null]}}"#)
    }

    func testManualContainersKeepCallOrder() {
        XCTAssertEqual(text(OrderedJSON.encode(Manual(), escapeSlash: false)),
                       #"{"first":"one","missing":null,"nested":{"y":1,"x":2},"list":[true,null,{"x":"deep"},4],"#
                       + #""super":"sup","again":2,"first":3}"#)
    }

    func testStreamingLimitsKeepTheOutputValid() {
        XCTAssertEqual(text(OrderedJSON.encode(LateNested(), escapeSlash: false)),
                       #"{"nested":{},"again":2,"refused":true,"super":1}"#)
        XCTAssertEqual(text(OrderedJSON.encode([LateNested()], escapeSlash: false)),
                       #"[{"nested":{},"again":2,"refused":true,"super":1}]"#)
        XCTAssertEqual(text(OrderedJSON.encode(["d": Derived()], escapeSlash: false)), #"{"d":{"base":1,"derived":2}}"#)
        XCTAssertEqual(text(OrderedJSON.encode([Silent(), Silent()], escapeSlash: false)), "[{},{}]")
        XCTAssertEqual(text(OrderedJSON.encode(Silent(), escapeSlash: false)), "{}")
    }

    func testTopLevelValues() throws {
        XCTAssertEqual(text(OrderedJSON.encode([1, 2], escapeSlash: false)), "[1,2]")
        XCTAssertEqual(text(OrderedJSON.encode("x/y", escapeSlash: true)), #""x\/y""#)
        XCTAssertEqual(text(OrderedJSON.encode(Optional<Int>.none, escapeSlash: false)), "null")
        XCTAssertEqual(text(OrderedJSON.encode(JSONValue.number("007"), escapeSlash: false)), "null")
        XCTAssertEqual(text(OrderedJSON.encode([JSONValue.number("1e2")], escapeSlash: false)), "[1e2]")
        XCTAssertEqual(text(OrderedJSON.encode(UInt64.max, escapeSlash: false)), "18446744073709551615")
    }

    func testEscapingTable() {
        var all = ""
        for b in 0..<0x20 { all.unicodeScalars.append(Unicode.Scalar(UInt8(b))) }
        let controls = #"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f"#
            + #"\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"#
        XCTAssertEqual(text(JSONValue.string(all).encoded(escapeSlash: false)), "\"" + controls + "\"")

        let others = "q\"b\\s/d\u{7F}é😀"
        XCTAssertEqual(text(JSONValue.string(others).encoded(escapeSlash: false)), "\"q\\\"b\\\\s/d\u{7F}é😀\"")
        XCTAssertEqual(text(JSONValue.string(others).encoded(escapeSlash: true)), "\"q\\\"b\\\\s\\/d\u{7F}é😀\"")
        // Raw UTF-8 bytes, never \u escapes, for DEL and non-ASCII.
        XCTAssertEqual(JSONValue.string("\u{7F}é😀").encoded(escapeSlash: false),
                       [0x22, 0x7F, 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80, 0x22])
        // Keys are escaped the same way.
        var w = JSONWriter(escapeSlash: true)
        w.beginObject(); w.key("a/\"\n"); w.null(); w.endObject()
        XCTAssertEqual(text(w.bytes), #"{"a\/\"\n":null}"#)
    }

    func testNumberFormatting() {
        func d(_ v: Double) -> String {
            var w = JSONWriter()
            w.double(v)
            return text(w.bytes)
        }
        XCTAssertEqual(d(2.0), "2")
        XCTAssertEqual(d(2.5), "2.5")
        XCTAssertEqual(d(1e-7), "1e-07")
        XCTAssertEqual(d(-0.5), "-0.5")
        XCTAssertEqual(d(0.1), "0.1")
        XCTAssertEqual(d(-3.0), "-3")
        XCTAssertEqual(d(1e300), "1e+300")
        XCTAssertEqual(d(.nan), "null")
        XCTAssertEqual(d(.infinity), "null")
        XCTAssertEqual(d(-.infinity), "null")

        var w = JSONWriter()
        w.beginArray()
        w.int(Int.min); w.int(0); w.int(Int.max); w.uint(UInt.max); w.float(0.1); w.float(3.0)
        w.bool(true); w.bool(false); w.raw(Array("{}".utf8))
        w.endArray()
        XCTAssertEqual(text(w.bytes), "[-9223372036854775808,0,9223372036854775807,18446744073709551615,0.1,3,true,false,{}]")
    }

    func testCommasAcrossNesting() {
        var w = JSONWriter()
        w.beginObject()
        w.key("a"); w.beginArray(); w.endArray()
        w.key("b"); w.beginObject(); w.endObject()
        w.key("c"); w.beginArray(); w.beginArray(); w.int(1); w.endArray(); w.beginObject(); w.key("d"); w.int(2); w.endObject(); w.endArray()
        w.endObject()
        XCTAssertEqual(text(w.bytes), #"{"a":[],"b":{},"c":[[1],{"d":2}]}"#)
    }

    func testRoundTripKeepsOrderAndNumberText() throws {
        let source = #"{"z":1,"a":[2.0,-0,1E+2,"x\/y\u00e9"],"m":{"k":null,"k":true},"e":""}"#
        let value = try parse(source)
        XCTAssertEqual(text(value.encoded(escapeSlash: false)),
                       #"{"z":1,"a":[2.0,-0,1E+2,"x/yé"],"m":{"k":null,"k":true},"e":""}"#)
    }
}

final class JSONParserTests: XCTestCase {
    func testAcceptedDocuments() throws {
        XCTAssertEqual(try parse(" \t\r\n{\"a\" : [1, 2.0, -0, 1e999, true, false, null, \"x\"]}\r\n\t "),
                       .object(JSONObject([("a", .array([.number("1"), .number("2.0"), .number("-0"), .number("1e999"),
                                                         .bool(true), .bool(false), .null, .string("x")]))])))
        XCTAssertEqual(try parse(#""\ud83d\ude00""#), .string("😀"))
        XCTAssertEqual(try parse(#""\u00E9\u00e9""#), .string("éé"))
        XCTAssertEqual(try parse("\"é\u{10FFFF}\""), .string("é\u{10FFFF}"))
        XCTAssertEqual(try parse(#""\"\\\/\b\f\n\r\t\u0000""#), .string("\"\\/\u{8}\u{C}\n\r\t\u{0}"))
        XCTAssertEqual(try parse(#""""#), .string(""))
        XCTAssertEqual(try parse("[]"), .array([]))
        XCTAssertEqual(try parse("{}"), .object(JSONObject()))
        XCTAssertEqual(try parse("[[],{},[{}]]"), .array([.array([]), .object(JSONObject()), .array([.object(JSONObject())])]))
        for number in ["0", "-0", "0.5", "1E+2", "1e-2", "-12.5e10", "123456789012345678901234567890"] {
            XCTAssertEqual(try parse(number), .number(number), number)
        }
        let huge = "9" + String(repeating: "0", count: 399)
        XCTAssertEqual(try parse(huge), .number(huge))
        XCTAssertEqual(try parse("-1e400").numberText, "-1e400")
    }

    func testRepeatedKeyLastWins() throws {
        let object = try XCTUnwrap(parse(#"{"a":1,"b":2,"a":3}"#).objectValue)
        XCTAssertEqual(object["a"], .number("3"))
        XCTAssertEqual(object["b"], .number("2"))
        XCTAssertNil(object["c"])
        XCTAssertEqual(object.keys, ["a", "b", "a"])
        XCTAssertNotEqual(object, JSONObject([("b", .number("2")), ("a", .number("1")), ("a", .number("3"))]))
    }

    func testRejectedDocuments() {
        let rejected: [String] = [
            "", "   ", "[1,]", #"{"a":1,}"#, "[,1]", "[1 2]", "[1]]", "1 2", "{", "[", #"{"a""#, #"{"a":}"#,
            #"{"a" 1}"#, "{a:1}", "{1:1}", "'a'", "01", "-01", "00", "1.", ".5", "-", "1e", "1e+", "+1", "0x10",
            "NaN", "Infinity", "-Infinity", "// c\n1", "/* c */1", "1 // c", "1 /* c */", "tru", "nul", "truex",
            "True", "\"abc", #""\x""#, #""\u12""#, #""\u12G4""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#,
            #""\ud800x""#, #""\ud800\""#, "\"a\tb\"", "\"a\nb\"", "\"\u{1F}\"", "\u{FEFF}1", "\u{0B}1", "\u{A0}1", "1\u{0}",
        ]
        for input in rejected {
            XCTAssertThrowsError(try parse(input), "should reject \(input.debugDescription)")
        }
        let invalidUTF8: [[UInt8]] = [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22],
            [0x22, 0xE2, 0x82, 0x22], [0x22, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xE0, 0x80, 0x80, 0x22],
            [0x22, 0xC3], [0xC3, 0xA9],
        ]
        for input in invalidUTF8 {
            XCTAssertThrowsError(try JSONParser.parse(input), "should reject \(input)")
        }
    }

    func testErrorCarriesMessageAndOffset() {
        do {
            _ = try parse("[1,]")
            XCTFail("accepted a trailing comma")
        } catch {
            XCTAssertEqual(error.offset, 3)
            XCTAssertEqual(error.message, "expected a value")
        }
        XCTAssertThrowsError(try parse("[01]")) { XCTAssertEqual(($0 as? JSONParseError)?.offset, 1) }
        XCTAssertThrowsError(try parse(#"["ab\ud800"]"#)) { XCTAssertEqual(($0 as? JSONParseError)?.offset, 4) }
        XCTAssertThrowsError(try parse("[1")) {
            XCTAssertEqual(($0 as? JSONParseError)?.description, "unexpected end of input at byte 2")
        }
    }

    /// Strings are scanned eight bytes at a time: whatever is not plain ASCII must be found at
    /// every place in such a word, and after plain bytes of every length.
    func testSpecialBytesAtEveryPlaceInAString() throws {
        for plain in 0..<20 {
            let before = String(repeating: "a", count: plain), after = String(repeating: "b", count: 11)
            XCTAssertEqual(try parse("\"\(before)\""), .string(before))
            XCTAssertEqual(try parse("\"\(before)\\n\(after)\""), .string(before + "\n" + after))
            XCTAssertEqual(try parse("\"\(before)\\\"\(after)\""), .string(before + "\"" + after))
            XCTAssertEqual(try parse("\"\(before)é\(after)\""), .string(before + "é" + after))
            XCTAssertThrowsError(try parse("\"\(before)\t\(after)\"")) { error in
                XCTAssertEqual((error as? JSONParseError)?.offset, plain + 1)
                XCTAssertEqual((error as? JSONParseError)?.message, "control character in string")
            }
            XCTAssertThrowsError(try JSONParser.parse(Array("\"\(before)".utf8) + [0xFF] + Array("\(after)\"".utf8))) { error in
                XCTAssertEqual((error as? JSONParseError)?.offset, plain + 1)
            }
        }
    }

    func testDepthLimit() throws {
        XCTAssertThrowsError(try JSONParser.parse([UInt8](repeating: UInt8(ascii: "["), count: 100_000)))
        XCTAssertThrowsError(try parse(String(repeating: #"{"a":"#, count: 100_000)))
        // Even when the limit is lifted, nesting uses no call stack.
        XCTAssertThrowsError(try JSONParser.parse([UInt8](repeating: UInt8(ascii: "["), count: 100_000), maxDepth: .max))

        let ok = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        XCTAssertNoThrow(try parse(ok))
        XCTAssertThrowsError(try parse("[" + ok + "]"))
        XCTAssertNoThrow(try parse("[" + ok + "]", maxDepth: 129))
        XCTAssertEqual(try parse("1", maxDepth: 0), .number("1"))
        XCTAssertThrowsError(try parse("[]", maxDepth: 0))
    }

    /// Every value counts one, keys do not, and the parse stops at the first value past the limit.
    func testValueLimit() throws {
        let fourValues = Array(#"{"a":[1],"b":{}}"#.utf8)
        XCTAssertNoThrow(try JSONParser.parse(fourValues, maxValues: 4))
        XCTAssertThrowsError(try JSONParser.parse(fourValues, maxValues: 3)) { error in
            XCTAssertEqual(error as? JSONParseError, JSONParseError("more than 3 values", at: 13))
        }
        XCTAssertThrowsError(try JSONParser.parse(Array("[\"x\",1,true,null]".utf8), maxValues: 4))
        XCTAssertNoThrow(try JSONParser.parse(Array("[\"x\",1,true,null]".utf8), maxValues: 5))
    }

    /// Speed is the benchmarks' business; this checks that long inputs parse whole (a quadratic
    /// parser would make the suite crawl, which a person notices).
    func testLongInputsParse() throws {
        let elements = 200_000
        let array = "[" + Array(repeating: "1", count: elements).joined(separator: ",") + "]"
        XCTAssertEqual(try parse(array).arrayValue?.count, elements)
        let object = "{" + (0..<elements).map { "\"k\($0)\":\"v\\n\"" }.joined(separator: ",") + "}"
        XCTAssertEqual(try parse(object).objectValue?.members.count, elements)
    }

    func testConvenienceAccessors() throws {
        let value = try parse(#"{"s":"x","b":false,"n":null,"a":[1],"o":{}}"#)
        let object = try XCTUnwrap(value.objectValue)
        XCTAssertEqual(object["s"]?.stringValue, "x")
        XCTAssertEqual(object["b"]?.boolValue, false)
        XCTAssertEqual(object["n"]?.isNull, true)
        XCTAssertEqual(object["s"]?.isNull, false)
        XCTAssertEqual(object["a"]?.arrayValue, [.number("1")])
        XCTAssertEqual(object["o"]?.objectValue, JSONObject())
        XCTAssertNil(object["s"]?.boolValue)
        XCTAssertNil(object["s"]?.numberText)
        XCTAssertNil(value.stringValue)
    }

    func testIntAndDoubleValues() {
        let ints: [(String, Int?)] = [
            ("2", 2), ("2.0", 2), ("2e0", 2), ("20e-1", 2), ("0.2e1", 2), ("-0", 0), ("0e999", 0), ("-7", -7),
            ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min), ("9223372036854775808", nil),
            ("-9223372036854775809", nil), ("1e18", 1_000_000_000_000_000_000), ("1e19", nil), ("2.5", nil),
            ("1e-1", nil), ("1e999999999999999999999", nil), ("000", nil), ("abc", nil), ("", nil), ("1 ", nil),
        ]
        for (literal, expected) in ints {
            XCTAssertEqual(JSONValue.number(literal).intValue, expected, literal)
        }
        XCTAssertNil(JSONValue.string("2").intValue)

        XCTAssertEqual(JSONValue.number("2.5").doubleValue, 2.5)
        XCTAssertEqual(JSONValue.number("-1e-7").doubleValue, -1e-7)
        XCTAssertEqual(JSONValue.number("1e-400").doubleValue, 0)
        XCTAssertNil(JSONValue.number("1e400").doubleValue)
        XCTAssertNil(JSONValue.number("inf").doubleValue)
        XCTAssertNil(JSONValue.number("0x10").doubleValue)
    }
}

final class JSONRobustnessTests: XCTestCase {
    /// Mutated documents must either be rejected or survive write-then-parse unchanged.
    func testMutatedDocumentsRoundTrip() throws {
        let seed = Array(#"{"a":[1,-2.5e3,true,null,"x\u00e9\ud83d\ude00\n"],"b":{"c":"d/e","c":0}}"#.utf8)
        let alphabet = Array(#"{}[],:"\/u0123456789.eE+-tfnl ab"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xED, 0xFF]
        var random = SystemRandomNumberGenerator()
        var accepted = 0
        for _ in 0..<5_000 {
            var doc = seed
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let i = Int.random(in: 0..<doc.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: doc[i] = alphabet.randomElement(using: &random)!
                case 1: doc.remove(at: i)
                default: doc.insert(alphabet.randomElement(using: &random)!, at: i)
                }
            }
            guard let value = try? JSONParser.parse(doc) else { continue }
            accepted += 1
            XCTAssertEqual(try JSONParser.parse(value.encoded(escapeSlash: true)), value, String(decoding: doc, as: UTF8.self))
        }
        XCTAssertGreaterThan(accepted, 0)
    }
}
