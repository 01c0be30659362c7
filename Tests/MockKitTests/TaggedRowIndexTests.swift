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

/// Removal, and rows filed together (`fileLater`, `filePending`), in a table of 16 slots where a
/// hash's top four bits are its first slot.
final class TaggedRowIndexRemoveAndFillTests: XCTestCase {
    private func hash(home: UInt32, _ low: UInt32 = 0) -> UInt32 { home << 28 | low }

    /// Rows whose run wraps from the last slot to the first: the gap a removal leaves is filled
    /// by a later row whose probe passes it, across the wrap, and not by one already at its first slot.
    func testRemovalAcrossTheWrapKeepsEveryOtherRowFound() {
        // Slots 15, 0, 1 hold rows 0-2 (first slot 15), slot 2 row 3 (first slot 1, moved on by row 2).
        let homes: [UInt32] = [15, 15, 15, 1, 1]
        for removed in homes.indices {
            var index = TaggedRowIndex()
            for (row, home) in homes.enumerated() { index.add(row, hash: hash(home: home, UInt32(row))) }
            index.remove(removed, hash: hash(home: homes[removed], UInt32(removed)))
            XCTAssertEqual(index.count, homes.count - 1)
            for (row, home) in homes.enumerated() {
                XCTAssertEqual(index.row(hash: hash(home: home, UInt32(row))) { $0 == row }, row == removed ? nil : row, "removed \(removed)")
            }
        }
    }

    /// Rows with the same hash bits: the one removed is the one named, and a row not filed, or
    /// filed under other bits, is not removed.
    func testRemovalAmongRowsWithTheSameHashTakesOutTheRowNamed() {
        var index = TaggedRowIndex()
        for row in 0..<3 { index.add(row, hash: hash(home: 3)) }
        index.remove(1, hash: hash(home: 3))
        index.remove(7, hash: hash(home: 3))
        index.remove(2, hash: hash(home: 4))
        XCTAssertEqual(index.count, 2)
        for row in 0..<3 { XCTAssertEqual(index.row(hash: hash(home: 3)) { $0 == row }, row == 1 ? nil : row) }
    }

    /// Rows filed together, into a table holding some already: every pair sharing hash bits comes
    /// back, the row filed earlier first, so a key filed twice is found among them; the table grows
    /// for them, and every row is found after.
    func testFilingTogetherReturnsTheRowsSharingHashBitsAndGrows() {
        // Row r holds key 2r, but row 40 key 10, as row 5 does; key k hashes as k / 6, three keys a hash.
        var keys = (0..<100).map { $0 * 2 }
        keys[40] = 10
        func hash(_ key: Int) -> UInt32 { UInt32(key / 6) << 26 | UInt32(key / 6) }
        var index = TaggedRowIndex()
        for row in 0..<10 { index.add(row, hash: hash(keys[row])) }
        for row in 10..<keys.count { index.fileLater(row, hash: hash(keys[row])) }
        XCTAssertEqual(index.row(hash: hash(keys[50])) { $0 == 50 }, nil, "not filed before filePending")
        let alike = index.filePending()
        XCTAssertEqual(index.count, keys.count)
        XCTAssertEqual(alike.filter { keys[$0.filed] == keys[$0.kept] }.map { [$0.filed, $0.kept] }, [[5, 40]])
        var expected: Set<[Int]> = []
        for kept in 10..<keys.count {
            for filed in 0..<kept where hash(keys[filed]) == hash(keys[kept]) { expected.insert([filed, kept]) }
        }
        XCTAssertEqual(Set(alike.map { [$0.filed, $0.kept] }), expected)
        XCTAssertEqual(alike.count, expected.count)
        for (row, key) in keys.enumerated() { XCTAssertEqual(index.row(hash: hash(key)) { $0 == row }, row) }
        XCTAssertTrue(index.filePending().isEmpty)
        XCTAssertEqual(index.count, keys.count)
    }

    /// Rows under real hashes, spread over the slots, through growth from the smallest table, then
    /// every third removed: each row is found until it is removed, and none after.
    func testRowsAreFoundThroughGrowthAndRemovals() {
        let hashes = (0..<10_000).map { KeyHash.of(bytesOf: $0) }
        var index = TaggedRowIndex()
        for (row, hash) in hashes.enumerated() { index.add(row, hash: hash) }
        for row in stride(from: 0, to: hashes.count, by: 3) { index.remove(row, hash: hashes[row]) }
        XCTAssertEqual(index.count, hashes.count - (hashes.count + 2) / 3)
        for (row, hash) in hashes.enumerated() {
            XCTAssertEqual(index.row(hash: hash) { $0 == row }, row % 3 == 0 ? nil : row)
        }
    }

    /// Rows filed together into a table too large to stay in the cache, which files them in groups:
    /// each is found after, and a hash filed twice comes back as a pair, the earlier row first.
    func testManyRowsFiledTogetherAreAllFound() {
        var hashes = (0..<200_000).map { KeyHash.of(bytesOf: $0) }
        hashes[150_000] = hashes[7]
        var index = TaggedRowIndex()
        for (row, hash) in hashes.enumerated() { index.fileLater(row, hash: hash) }
        let alike = index.filePending()
        XCTAssertEqual(index.count, hashes.count)
        XCTAssertTrue(alike.contains { $0.filed == 7 && $0.kept == 150_000 }, "\(alike)")
        let lost = hashes.indices.filter { row in index.row(hash: hashes[row]) { $0 == row } != row }
        XCTAssertEqual(lost, [])
    }

    /// A table filled with one row, or none, still has empty slots, where a search for an absent key ends.
    func testASmallFilledTableEndsASearchForAnAbsentKey() {
        for rows in [0, 1, 2] {
            var index = TaggedRowIndex()
            for row in 0..<rows { index.fileLater(row, hash: UInt32(row) << 24) }
            XCTAssertTrue(index.filePending().isEmpty)
            XCTAssertNil(index.row(hash: 99 << 24) { _ in false })
            index.add(rows, hash: 5 << 24)
            XCTAssertEqual(index.row(hash: 5 << 24) { $0 == rows }, rows)
        }
    }
}
