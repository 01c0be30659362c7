@testable import OTP
import XCTest

/// The per-number tables under a flood of sends to new numbers (docs/apis/otp.md#guessing-a-code).
final class OTPPruneTests: XCTestCase {
    func testTrackedNumbersStayWithinTheLimitAndPrunesStayFew() throws {
        var state = OTPState(directory: OTPDirectory())
        state.trackedNumbersLimit = 1_000
        let phones = (0..<5_000).map { "+1530\(1_000_000 + $0)" }
        for (second, phone) in phones.enumerated() {
            // All within the hour: nothing has run out, so only the limit can drop numbers.
            try state.issueCode("123456", to: phone, nowMillis: second, ttlMillis: 600_000)
            XCTAssertLessThanOrEqual(max(state.budgets.count, state.pendingCodes.count), 1_000)
        }
        // One prune per 500 new numbers (half the limit), not one per send.
        XCTAssertLessThanOrEqual(state.pruneCount, 5_000 / 500)
        // The newest numbers keep their budget and code; the oldest were dropped, hour or not.
        XCTAssertEqual(state.budgets[phones[4_999]]?.codesSent, 1)
        XCTAssertNotNil(state.pendingCodes[phones[4_999]])
        XCTAssertNil(state.budgets[phones[0]])
        XCTAssertNil(state.pendingCodes[phones[0]])
    }
}
