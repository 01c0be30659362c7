import MockKit
import XCTest

final class HugePagesTests: XCTestCase {
    func testReservingInHugePagesKeepsTheElementsAndLeavesRoomToFill() {
        // Below and above one huge page (2 MiB) of elements.
        for capacity in [1_000, 600_000] {
            var numbers: [UInt64] = [1, 2, 3]
            numbers.reserveCapacityInHugePages(capacity)
            XCTAssertEqual(numbers, [1, 2, 3])
            XCTAssertGreaterThanOrEqual(numbers.capacity, capacity)
            let base = numbers.withUnsafeBufferPointer { $0.baseAddress }
            numbers.append(contentsOf: 3..<UInt64(capacity))
            XCTAssertEqual(numbers.withUnsafeBufferPointer { $0.baseAddress }, base, "grown while filling")
            XCTAssertEqual(numbers.last, UInt64(capacity - 1))
        }
    }
}
