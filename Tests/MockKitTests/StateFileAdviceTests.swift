import Foundation
@testable import MockKit
import XCTest

/// The start-up advice for a state file whose disk quota is used up (issue 30 item 2). Every other
/// cause is met for real by `StateFileTests` and `StateFileDamageTests` (a full tmpfs, a read-only
/// remount, a folder uid 10001 may not write, a missing folder, a folder as the path). A quota
/// cannot be: this machine's kernel has no quota format (CONFIG_QFMT_V2) and no tmpfs quotas, so
/// the advice is checked where it is made.
final class StateFileAdviceTests: XCTestCase {
    func testAUsedUpQuotaIsNamedWithWhatTheStateNeeds() {
        let failure = DiskFile.Failure(call: "create", path: "/data/state.json", code: EDQUOT)
        // The start measures the state for this cause, as for a full disk.
        XCTAssertTrue(failure.isOutOfRoom)
        var expected = "cannot write the state file /data/state.json: disk quota exceeded; the disk quota of uid \(getuid())"
        expected += " on /data is used up; the state needs 4096 bytes. Free some of that user's files or raise the quota,"
        expected += " or give --state a file elsewhere"
        XCTAssertEqual(StateFileError.unwritable(failure, stateSize: 4096).description, expected)
    }
}
