import MockKit
import XCTest

/// `SeedReader.members` takes the member name it expects next straight from the text when it is
/// written plainly (`"name"`); every other spelling goes through the scanner. Both must find the
/// same members and refuse the same texts at the same places.
final class MemberNameTests: XCTestCase {
    /// What reading `text` as one object with `keys` gives: `key=value` for each member read, or the error.
    private func read(_ text: String, _ keys: SeedKeys = SeedKeys(["name", "age"], optional: ["nick"])) -> String {
        do {
            return try SeedJSON(Array(text.utf8)).read { root throws(SeedError) in
                var found: [String] = []
                try root.members(keys) { index, value throws(SeedError) in
                    let text: String
                    if let string = try? value.string() { text = string } else { text = "\(try value.int())" }
                    found.append("\(index)=\(text)")
                }
                return found.joined(separator: " ")
            }
        } catch {
            return "\(error)"
        }
    }

    func testNamesInAnySpellingOrderAndSpacingFindTheSameMembers() {
        XCTAssertEqual(read(#"{"name":"a","age":1,"nick":"b"}"#), "0=a 1=1 2=b")
        XCTAssertEqual(read("{ \"name\" : \"a\" , \"age\"\t:1 }"), "0=a 1=1")
        XCTAssertEqual(read(#"{"n\u0061me":"a","\u0061ge":1}"#), "0=a 1=1")
        XCTAssertEqual(read(#"{"age":1,"nick":"b","name":"a"}"#), "0=a 1=1 2=b")
        // Names that start or end like an expected one are other members, checked and skipped.
        XCTAssertEqual(read(#"{"names":"x","nam":"y","name":"a","ag":2,"age":1,"nicks":3}"#), "0=a 1=1")
        XCTAssertEqual(read(#"{"name":"a","age":1,"name":"b"}"#), "$: name is given twice")
    }

    func testACutNameOrAMissingColonIsRefusedWhereItGoesWrong() {
        XCTAssertEqual(read(#"{"name""#), "$: not valid JSON: unexpected end of input at byte 7")
        XCTAssertEqual(read(#"{"name"#), "$: not valid JSON: unexpected end of input at byte 6")
        XCTAssertEqual(read(#"{"name" "a"}"#), "$: not valid JSON: expected ':' at byte 8")
        XCTAssertEqual(read(#"{"name":"a","age"1}"#), "$: not valid JSON: expected ':' at byte 17")
        XCTAssertEqual(read(#"{"name":"#), "$: not valid JSON: unexpected end of input at byte 8")
    }

    /// A name with a quote, a backslash or a control character is never its bytes between quotes.
    func testANameThatNeedsEscapesIsFoundOnlyEscaped() {
        let keys = SeedKeys(["a\"b", "c\\d", "e\nf"])
        XCTAssertEqual(read(#"{"a\"b":"x","c\\d":"y","e\nf":"z"}"#, keys), "0=x 1=y 2=z")
        XCTAssertEqual(read(#"{"a"b":"x","c\\d":"y","e\nf":"z"}"#, keys), "$: not valid JSON: expected ':' at byte 4")
        XCTAssertEqual(read("{\"a\\\"b\":\"x\",\"c\\d\":\"y\"}", keys), "$: not valid JSON: invalid escape at byte 15")
        XCTAssertEqual(read("{\"a\\\"b\":\"x\",\"c\\\\d\":\"y\",\"e\nf\":\"z\"}", keys), "$: not valid JSON: control character in string at byte 25")
    }
}
