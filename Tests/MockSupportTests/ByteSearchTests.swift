import MockSupport
import XCTest

/// The linear byte search against the plain one, on patterns that overlap themselves the most:
/// few letters, repeats, partial matches at the end.
final class ByteSearchTests: XCTestCase {
    func testItFindsWhatThePlainSearchFinds() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            let letters: [UInt8] = Array("ab-".utf8).prefix(Int.random(in: 1...3, using: &generator)).map { $0 }
            let pattern = (0..<Int.random(in: 1...6, using: &generator)).map { _ in letters.randomElement(using: &generator)! }
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in letters.randomElement(using: &generator)! }
            let search = ByteSearch(pattern)
            XCTAssertEqual(search.firstRange(in: bytes), bytes.firstRange(of: pattern), "\(pattern) in \(bytes)")
            // In a slice, indices are the array's.
            let slice = bytes.dropFirst(3)
            XCTAssertEqual(search.firstRange(in: slice), slice.firstRange(of: pattern), "\(pattern) in \(slice)")
        }
    }

    func testBoundariesAndEdges() {
        let boundary = ByteSearch("--" + String(repeating: "-", count: 67) + "x")
        let dashes = [UInt8](repeating: UInt8(ascii: "-"), count: 100_000)
        XCTAssertNil(boundary.firstRange(in: dashes))
        XCTAssertEqual(boundary.firstRange(in: dashes + Array("x".utf8)), (100_000 - 69)..<100_001)
        XCTAssertEqual(ByteSearch("").firstRange(in: Array("abc".utf8)), 0..<0)
        XCTAssertNil(ByteSearch("abcd").firstRange(in: Array("abc".utf8)))
        XCTAssertEqual(ByteSearch("aab").firstRange(in: Array("aaab".utf8)), 1..<4)
        XCTAssertEqual(ByteSearch("abab").firstRange(in: Array("abaabab".utf8)), 3..<7)
        XCTAssertTrue(ByteSearch("\"rating\"").occurs(in: Array(#"{"rating":5}"#.utf8)))
    }
}
