@testable import MockKit
import XCTest

/// The id-ordered table behind the threads and WSUV stores: lookups, order and packing.
final class IDTableTests: XCTestCase {
    private struct Row: Identifiable, Equatable {
        var id: Int
        var text: String
    }

    func testRowsStayInIDOrderThroughRemovalsAndPacking() {
        var table = IDTable((1...100).reversed().map { Row(id: $0 * 2, text: "row \($0 * 2)") })
        XCTAssertEqual(table.rows.map(\.id), (1...100).map { $0 * 2 })
        // Removing 80 of 100 rows packs the slots more than once.
        for id in stride(from: 2, through: 160, by: 2) { XCTAssertEqual(table.remove(id)?.id, id) }
        XCTAssertNil(table.remove(2))
        XCTAssertNil(table[160])
        XCTAssertEqual(table.count, 20)
        XCTAssertEqual(table[162], Row(id: 162, text: "row 162"))
        table.append(Row(id: 201, text: "new"))
        table.replace(Row(id: 170, text: "changed"))
        XCTAssertEqual(table.rows.map(\.id), (81...100).map { $0 * 2 } + [201])
        XCTAssertEqual(table[170]?.text, "changed")
        XCTAssertEqual(table[201]?.text, "new")
        XCTAssertEqual(table.last?.id, 201)
    }

    func testLastSkipsRemovedRows() {
        var table = IDTable([Row(id: 1, text: "a"), Row(id: 2, text: "b")])
        table.remove(2)
        XCTAssertEqual(table.last?.id, 1)
        table.remove(1)
        XCTAssertNil(table.last)
    }
}
