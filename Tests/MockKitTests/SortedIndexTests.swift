@testable import MockKit
import XCTest

/// The chunked sorted index behind `get-tweets.cgi?date=`, checked against a plain sorted array.
final class SortedIndexTests: XCTestCase {
    func testInsertsRemovesAndSuffixesMatchASortedArray() {
        var generator = SystemRandomNumberGenerator()
        var index = SortedIndex(sorted: Array(0..<3_000).map { $0 * 2 })
        var expected = Array(0..<3_000).map { $0 * 2 }
        for step in 0..<6_000 {
            let value = Int.random(in: -10...7_000, using: &generator)
            if step % 3 == 2, let present = expected.firstIndex(of: value) {
                XCTAssertTrue(index.remove(value))
                expected.remove(at: present)
            } else if step % 3 == 2 {
                XCTAssertFalse(index.remove(value))
            } else {
                index.insert(value)
                expected.insert(value, at: expected.firstIndex { $0 >= value } ?? expected.count)
            }
            if step % 500 == 0 {
                let bound = Int.random(in: -20...7_100, using: &generator)
                XCTAssertEqual(Array(index.elements { $0 > bound }), expected.filter { $0 > bound })
            }
        }
        XCTAssertEqual(Array(index.elements { _ in true }), expected)
        XCTAssertEqual(Array(index.elements { $0 > 7_000 }), [])
        // Emptied, then used again.
        for value in expected { XCTAssertTrue(index.remove(value)) }
        XCTAssertEqual(Array(index.elements { _ in true }), [])
        index.insert(5)
        XCTAssertEqual(Array(index.elements { $0 >= 5 }), [5])
    }
}
