import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// Seeds are read straight from their bytes (`SeedJSON`): what the text says must reach the
/// answers exactly, whatever the escapes, number forms and member order, and text that is not
/// JSON, or not the seed's shape, must be refused with its place.
final class SeedReaderTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("seed-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: folder)
    }

    /// Writes `bytes` as the WSUV seed and loads it; the error is what start-up prints after "bad seed: ".
    private func load(_ bytes: [UInt8]) -> Result<[any MockAPI], FileProblem> {
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("wsuv.json").path, contents: Data(bytes))
        var options = APIOptions()
        options.console = { _ in }
        return Result { () throws(FileProblem) in try APICatalog.load(["wsuv"], seed: SeedDirectory(url: folder), options: options) }
    }

    private func serve(_ document: String) throws -> TestServer {
        try TestServer(responder: MockApp(apis: load(Array(document.utf8)).get()))
    }

    private func problem(_ document: String) -> String {
        problem(Array(document.utf8))
    }

    private func problem(_ bytes: [UInt8]) -> String {
        guard case let .failure(problem) = load(bytes) else { return "loaded" }
        return "\(problem)".replacingOccurrences(of: folder.path + "/", with: "")
    }

    /// A WSUV seed of one user and these tweets (JSON text each, ids from 1).
    private static func seed(tweets: [String], users: String = #"[{"username":"u","password":"p","session_token":"0"}]"#) -> String {
        let rows = tweets.enumerated().map { index, text in
            #"{"tweet_id":\#(index + 1),"username":"u","time_stamp":"2016-03-28 09:00:0\#(index)","tweet":\#(text),"isdeleted":0}"#
        }
        return #"{"users":\#(users),"tweets":[\#(rows.joined(separator: ","))]}"#
    }

    /// The texts of every tweet, in the answer's order (oldest first), as UTF-8.
    private func texts(_ server: TestServer) throws -> [[UInt8]] {
        let answer = try server.request("GET", "/get-tweets.cgi")
        XCTAssertEqual(answer.status, 200, answer.text)
        let tweets = try XCTUnwrap(JSONParser.parse(answer.body).objectValue?["tweets"]?.arrayValue)
        return tweets.map { Array(($0.objectValue?["tweet"]?.stringValue ?? "").utf8) }
    }

    func testEscapesSurrogatePairsAndUTF8ReachTheAnswerExactly() throws {
        let cases: [(json: String, text: String)] = [
            (#""quote \" backslash \\ slash \/ b \b f \f n \n r \r t \t""#, "quote \" backslash \\ slash / b \u{08} f \u{0C} n \n r \r t \t"),
            (#""\u00e9\u4E2D\u0000\u001f""#, "\u{E9}\u{4E2D}\u{0}\u{1F}"),
            (#""pair \ud83d\ude00 and \uD834\uDD1E""#, "pair \u{1F600} and \u{1D11E}"),
            ("\"raw é 中 😀 \u{10FFFF}\"", "raw é 中 😀 \u{10FFFF}"),
            // Escapes and non-ASCII bytes on both sides of the eight-byte steps of the string scan.
            (#""1234567\"12345678\\""#, "1234567\"12345678\\"),
            ("\"12345678é1234567😀\"", "12345678é1234567😀"),
            (#""12345678""#, "12345678"),
            (#""""#, ""),
        ]
        let server = try serve(Self.seed(tweets: cases.map(\.json)))
        XCTAssertEqual(try texts(server), cases.map { Array($0.text.utf8) })
    }

    func testIntegersInAnyExactFormAndMembersInAnyOrder() throws {
        // Tweets before users, keys in another order, unknown members skipped: users are read first anyway.
        let document = #"""
            {"note": {"nested": [1, [2, {"x": "\u00e9"}], -3.5e-7, true, false, null]},
             "tweets": [{"isdeleted": 0.0, "tweet": "a", "time_stamp": "2016-03-28 09:00:00", "username": "u", "tweet_id": 1},
                        {"tweet_id": 2.0, "username": "u", "time_stamp": "2016-03-28 09:00:01", "tweet": "b", "isdeleted": 1e0},
                        {"tweet_id": 30E-1, "username": "u", "time_stamp": "2016-03-28 09:00:02", "tweet": "c", "isdeleted": -0}],
             "users": [{"session_token": "0", "password": "p", "username": "u", "extra": {}}]}
            """#
        let server = try serve(document)
        let answer = try JSONParser.parse(try server.request("GET", "/get-tweets.cgi").body)
        let tweets = try XCTUnwrap(answer.objectValue?["tweets"]?.arrayValue)
        XCTAssertEqual(tweets.compactMap { $0.objectValue?["tweet_id"]?.intValue }, [1, 2, 3])
        XCTAssertEqual(tweets.compactMap { $0.objectValue?["isdeleted"]?.intValue }, [0, 1, 0])
    }

    func testValuesNestedInARowAreSkippedWhereTheyEnd() throws {
        // A row's unknown member, nested, is passed by its brackets alone (the root's check saw it):
        // quotes, brackets and commas inside its strings, escaped or not, must not end it early.
        let tricky = #"{"a": "x\"]}", "b": ["\\", "]", {"c": "},{"}, [[], {}]], "d": "é 😀 \u00e9\\\""}"#
        var document = #"{"users":[{"username":"u","password":"p","session_token":"0"}],"tweets":["#
        document += #"{"extra":\#(tricky),"tweet_id":1,"username":"u","time_stamp":"2016-03-28 09:00:00","tweet":"after","isdeleted":0},"#
        document += #"{"tweet_id":2,"username":"u","extra":[\#(tricky),\#(tricky)],"time_stamp":"2016-03-28 09:00:01","tweet":"b","isdeleted":0}]}"#
        XCTAssertEqual(try texts(try serve(document)), [Array("after".utf8), Array("b".utf8)])
    }

    func testARowsMemberNamesSpelledWithEscapesAreFound() throws {
        // A row's names are found, not checked again (the root's check saw them): an escape still
        // spells its letter.
        var document = #"{"users":[{"us\u0065rname":"u","password":"p","session_token":"0"}],"tweets":["#
        document += #"{"tweet_id":1,"username":"u","time_stamp":"2016-03-28 09:00:00","tw\u0065et":"esc","isdeleted":0}]}"#
        XCTAssertEqual(try texts(try serve(document)), [Array("esc".utf8)])
    }

    func testNumbersThatAreNotIntegersAreRefusedWithTheirPlace() {
        XCTAssertEqual(problem(Self.seed(tweets: [#""a""#]).replacingOccurrences(of: #""isdeleted":0"#, with: #""isdeleted":0.5"#)),
                       "wsuv.json:1:162: $.tweets[0].isdeleted: expected an integer")
        XCTAssertEqual(problem(Self.seed(tweets: [#""a""#]).replacingOccurrences(of: #""tweet_id":1"#, with: #""tweet_id":9223372036854775808"#)),
                       "wsuv.json:1:86: $.tweets[0].tweet_id: expected an integer")
        XCTAssertEqual(problem(Self.seed(tweets: [#""a""#]).replacingOccurrences(of: #""tweet_id":1"#, with: #""tweet_id":"1""#)),
                       "wsuv.json:1:86: $.tweets[0].tweet_id: expected an integer")
        XCTAssertEqual(problem(Self.seed(tweets: [#""a""#]).replacingOccurrences(of: #""tweet_id":1"#, with: #""tweet_id":01"#)),
                       "wsuv.json:1:86: not valid JSON: leading zeros are not allowed")
    }

    func testTextThatIsNotJSONIsRefusedWhereItGoesWrong() {
        let good = Self.seed(tweets: [#""a""#])
        XCTAssertEqual(problem(good.replacingOccurrences(of: #""tweet":"a""#, with: #""tweet":"\ud800x""#)),
                       "wsuv.json:1:147: not valid JSON: unpaired surrogate escape")
        XCTAssertEqual(problem(good.replacingOccurrences(of: #""tweet":"a""#, with: #""tweet":"\udc00""#)),
                       "wsuv.json:1:147: not valid JSON: unpaired surrogate escape")
        XCTAssertEqual(problem(good.replacingOccurrences(of: #""tweet":"a""#, with: #""tweet":"\x""#)),
                       "wsuv.json:1:148: not valid JSON: invalid escape")
        XCTAssertEqual(problem(good.replacingOccurrences(of: #""tweet":"a""#, with: "\"tweet\":\"a\tb\"")),
                       "wsuv.json:1:148: not valid JSON: control character in string")
        // Invalid UTF-8: a stray continuation byte, an overlong form, a surrogate, a cut sequence.
        for bad: [UInt8] in [[0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE4, 0xB8]] {
            var bytes = Array(good.utf8)
            let tweet = Array(#""tweet":"a"#.utf8)
            let letter = Self.range(of: tweet, in: bytes)! + tweet.count - 1
            bytes.replaceSubrange(letter...letter, with: bad)
            XCTAssertEqual(problem(bytes), "wsuv.json:1:147: not valid JSON: invalid UTF-8", "\(bad)")
        }
        // A syntax error further on wins over a problem found earlier in the rows.
        XCTAssertEqual(problem(good.replacingOccurrences(of: #""password":"p""#, with: #""password":"""#) + " x"),
                       "wsuv.json:1:166: not valid JSON: unexpected data after the JSON value")
        XCTAssertEqual(problem(good.replacingOccurrences(of: #""password":"p""#, with: #""password":"""#)),
                       "wsuv.json:1:38: $.users[0].password: must not be empty")
    }

    func testAStateBodyThatIsNotJSONFurtherOnIsRefusedAsSuch() throws {
        let good = Self.seed(tweets: [#""a""#])
        let server = try serve(good)
        let empty = good.replacingOccurrences(of: #""password":"p""#, with: #""password":"""#)
        XCTAssertEqual(try server.request("PUT", "/_mock/state/wsuv", body: empty).text,
                       #"{"error":"invalid_state","path":"$.users[0].password","detail":"must not be empty"}"#)
        XCTAssertEqual(try server.request("PUT", "/_mock/state/wsuv", body: empty + " x").text,
                       #"{"error":"invalid_state","path":"$","detail":"the body is not valid JSON"}"#)
        XCTAssertEqual(try server.request("PUT", "/_mock/state/wsuv", body: good).status, 200)
    }

    func testEveryCutOfADocumentIsRefused() {
        let good = Array(Self.seed(tweets: [#""\ud83d\ude00 é""#, #""b""#]).utf8)
        for cut in 0..<good.count {
            let found = problem(Array(good[..<cut]))
            XCTAssertTrue(found.contains("not valid JSON: "), "cut at \(cut): \(found)")
        }
        XCTAssertEqual(problem(good), "loaded")
    }

    func testNestingAndRepeatedKeys() {
        let deep = String(repeating: "[", count: 127) + String(repeating: "]", count: 127)
        XCTAssertEqual(problem(#"{"skipped":\#(deep),"users":[],"tweets":[]}"#), "loaded")
        let deeper = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        XCTAssertEqual(problem(#"{"skipped":\#(deeper),"users":[],"tweets":[]}"#),
                       "wsuv.json:1:139: not valid JSON: nesting deeper than 128")
        // A name given twice counts the last time, as JSON parsers take it (issue 31 reversed this refusal).
        XCTAssertEqual(problem(#"{"users":[],"tweets":[],"users":[]}"#), "loaded")
        XCTAssertEqual(problem(#"{"tweets":[],"tweets":[],"users":[]}"#), "loaded")
        XCTAssertEqual(problem(#"{"users":[]}"#), "wsuv.json:1:1: $.tweets: missing")
        // Members no one reads, and the first of a name given twice, are still checked.
        XCTAssertEqual(problem(#"{"note":[1 2],"users":[],"tweets":[]}"#), "wsuv.json:1:12: not valid JSON: expected ',' or ']'")
        XCTAssertEqual(problem(#"{"users":[{]},"tweets":[],"users":[]}"#), "wsuv.json:1:12: not valid JSON: expected a string key")
    }

    private static func range(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        (0...(bytes.count - needle.count)).first { Array(bytes[$0..<$0 + needle.count]) == needle }
    }
}
