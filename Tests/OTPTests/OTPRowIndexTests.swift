@testable import OTP
import XCTest

/// `RowIndex.fill`, which files a seed's rows at once.
final class OTPRowIndexTests: XCTestCase {
    /// Keys that share a hash (ten per hash here, by chance in real tables) are told apart by the rows.
    func testFillTellsRowsWithTheSameHashApartAndFindsEach() {
        let keys = (0..<1_000).map { $0 * 7 }
        func hash(_ key: Int) -> UInt64 { UInt64(key / 70) << 40 }
        var index = RowIndex()
        XCTAssertTrue(index.fill(rows: keys.count, hash: { hash(keys[$0]) }, sameKey: { keys[$0] == keys[$1] }))
        XCTAssertEqual(index.count, keys.count)
        for (row, key) in keys.enumerated() {
            XCTAssertEqual(index.row(hash: hash(key)) { keys[$0] == key }, row)
        }
        XCTAssertNil(index.row(hash: hash(7 * 1_000)) { keys[$0] == 7 * 1_000 })
        XCTAssertNil(index.row(hash: hash(1)) { keys[$0] == 1 })
    }

    func testFillRefusesAKeyTwice() {
        var keys = Array(0..<1_000)
        keys[700] = 3
        var index = RowIndex()
        XCTAssertFalse(index.fill(rows: keys.count, hash: { UInt64(keys[$0] / 70) << 40 }, sameKey: { keys[$0] == keys[$1] }))
    }

    /// A table filled with one row, or none, still has empty slots, where a search for an absent key ends.
    func testASmallFilledTableEndsASearchForAnAbsentKey() {
        for rows in [0, 1, 2] {
            var index = RowIndex()
            XCTAssertTrue(index.fill(rows: rows, hash: { UInt64($0) << 40 }, sameKey: { $0 == $1 }))
            XCTAssertNil(index.row(hash: 99 << 40) { _ in false })
            index.insert(hash: 5 << 40, row: rows)
            XCTAssertEqual(index.row(hash: 5 << 40) { $0 == rows }, rows)
        }
    }
}
