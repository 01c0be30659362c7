import MockKit
import XCTest

final class TaggedRowIndexTests: XCTestCase {
    /// Keys that share a hash (ten per hash here) are told apart by the rows, through growth from
    /// the smallest table, and a key filed again gives back the row that has it.
    func testRowsWithTheSameHashAreToldApartAndAKeyIsFiledOnce() {
        let keys = (0..<1_000).map { $0 * 7 }
        func hash(_ key: Int) -> UInt32 { UInt32(key / 70) << 20 | UInt32(key / 70) }
        var index = TaggedRowIndex()
        for (row, key) in keys.enumerated() {
            XCTAssertNil(index.insert(row, hash: hash(key)) { keys[$0] == key })
        }
        XCTAssertEqual(index.count, keys.count)
        for (row, key) in keys.enumerated() {
            XCTAssertEqual(index.row(hash: hash(key)) { keys[$0] == key }, row)
            XCTAssertEqual(index.insert(5_000, hash: hash(key)) { keys[$0] == key }, row)
        }
        XCTAssertEqual(index.count, keys.count)
        XCTAssertNil(index.row(hash: hash(7 * 1_000)) { keys[$0] == 7 * 1_000 })
        XCTAssertNil(index.row(hash: hash(1)) { keys[$0] == 1 })
    }

    /// A table reserved for its rows, or holding none, still has empty slots, where a search ends.
    func testAFullyReservedTableEndsASearchForAnAbsentKey() {
        for rows in [0, 1, 12, 100] {
            var index = TaggedRowIndex(capacity: rows)
            for row in 0..<rows { XCTAssertNil(index.insert(row, hash: UInt32(row) << 24) { _ in false }) }
            XCTAssertNil(index.row(hash: 200 << 24) { _ in false })
            XCTAssertEqual(index.row(hash: 0) { $0 == 0 }, rows == 0 ? nil : 0)
        }
    }
}
