import Foundation
import MockKit
import XCTest

/// A seed file mapped at start-up (`SeedDirectory.mappedDocument`) reads exactly as the same file
/// read into memory: the same values, the same errors with the same places, the same bytes.
final class MappedDocumentTests: XCTestCase {
    private var folder: URL!
    private let keys = SeedKeys(["name", "age"], optional: ["tags"])

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapped-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: folder)
    }

    /// What reading `text` as a list of people gives, mapped and read: each the rows or the error.
    private func bothWays(_ text: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> (mapped: String, read: String) {
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("people.json").path, contents: Data(text))
        let seed = SeedDirectory(url: folder)
        func outcome(_ document: () throws(SeedError) -> SeedJSON) -> String {
            do {
                let document = try document()
                XCTAssertEqual(document.count, text.count, file: file, line: line)
                XCTAssertEqual(document.withUnsafeBytes { Array($0) }, text, file: file, line: line)
                XCTAssertEqual(Array(document.bytes), text, file: file, line: line)
                return try document.read { root throws(SeedError) in try people(&root) }
            } catch {
                return "\(error)".replacingOccurrences(of: folder.path, with: "")
            }
        }
        return (outcome { () throws(SeedError) in try seed.mappedDocument("people.json") },
                outcome { () throws(SeedError) in try seed.document("people.json") })
    }

    private func people(_ root: inout SeedReader) throws(SeedError) -> String {
        var rows: [String] = []
        try root.members(SeedKeys(["people"])) { _, list throws(SeedError) in
            try list.elements { person throws(SeedError) in
                var row = ""
                try person.members(keys) { index, value throws(SeedError) in
                    switch index {
                    case 0: row += try value.text()
                    case 1: row += " \(try value.int())"
                    default: try value.elements { tag throws(SeedError) in row += " #" + (try tag.string()) }
                    }
                }
                rows.append(row)
            }
        }
        return rows.joined(separator: "; ")
    }

    func testValuesAndErrorsAreTheSameAsReadingTheFile() {
        let documents = [
            #"{"people":[{"age":30,"name":"Zoë \u00e9\ud83d\ude00","tags":["a\"b"]},{"name":"Bo","age":2e1}]}"#,
            #"{"people":[{"name":"Al","age":1},{"name":"","age":2}]}"#,
            #"{"people":[{"name":"Al","age":1.5}]}"#,
            #"{"people":[{"name":"Al"}]}"#,
            #"{"people":[{"name":"Al","age":1}]} trailing"#,
            #"{"people":[{"name":"Al","age":1,"age":2}]}"#,
            #"{"people":[{"name":"Al","age":1},{"name":"\x"}]}"#,
        ]
        let expected = [
            "Zoë é😀 30 #a\"b; Bo 20",
            "$.people[1].name: must not be empty",
            "$.people[0].age: expected an integer",
            "$.people[0].age: missing",
            "$: not valid JSON: unexpected data after the JSON value at byte 35",
            "$.people[0]: age is given twice",
            "$: not valid JSON: invalid escape at byte 43",
        ]
        for (document, expected) in zip(documents, expected) {
            let results = bothWays(Array(document.utf8))
            XCTAssertEqual(results.mapped, expected, document)
            XCTAssertEqual(results.read, expected, document)
        }
    }

    /// A text that fills its last page exactly: the reader must stop at its end, where a mapping's
    /// memory stops too.
    func testATextEndingExactlyAtAPageEndIsReadToItsEndOnly() {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let opening = Array(#"{"people":[{"name":"Al","age":1,"tags":[""#.utf8)
        let cut = opening + [UInt8](repeating: UInt8(ascii: "x"), count: 2 * page - opening.count)
        XCTAssertEqual(bothWays(cut).mapped, "$: not valid JSON: unexpected end of input at byte \(2 * page)")
        XCTAssertEqual(bothWays(cut).read, bothWays(cut).mapped)
        var whole = Array(#"{"people":[{"name":"Al","age":1}]}"#.utf8)
        whole += [UInt8](repeating: UInt8(ascii: " "), count: page - whole.count)
        XCTAssertEqual(bothWays(whole).mapped, "Al 1")
        XCTAssertEqual(bothWays(whole).read, "Al 1")
    }

    func testMissingAndEmptyFilesFailAsWhenRead() {
        let seed = SeedDirectory(url: folder)
        func error(_ read: () throws(SeedError) -> SeedJSON) -> String {
            do {
                return "read \(try read().count) bytes: " + (try read().read { root throws(SeedError) in try root.string() })
            } catch {
                return "\(error)".replacingOccurrences(of: folder.path, with: "")
            }
        }
        XCTAssertEqual(error { () throws(SeedError) in try seed.mappedDocument("none.json") }, "/none.json: $: cannot read the file")
        XCTAssertEqual(error { () throws(SeedError) in try seed.document("none.json") }, "/none.json: $: cannot read the file")
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("empty.json").path, contents: Data())
        XCTAssertEqual(error { () throws(SeedError) in try seed.mappedDocument("empty.json") }, "$: not valid JSON: unexpected end of input at byte 0")
        XCTAssertEqual(error { () throws(SeedError) in try seed.document("empty.json") }, "$: not valid JSON: unexpected end of input at byte 0")
    }
}
