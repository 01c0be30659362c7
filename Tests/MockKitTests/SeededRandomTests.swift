@testable import MockKit
import XCTest

/// The generator behind `--random-seed` and the clock behind `--clock`, without a server.
final class SeededRandomTests: XCTestCase {
    /// The reference implementation's first outputs from the state {1, 2, 3, 4}.
    func testXoshiroMatchesTheReferenceSequence() {
        var generator = Xoshiro256StarStar(state: (1, 2, 3, 4))
        XCTAssertEqual((0..<4).map { _ in generator.next() }, [11520, 0, 1_509_978_240, 1_215_971_899_390_074_240])
    }

    func testStreamsDependOnTheSeedAndTheNameAndRestart() {
        let one = Randomness(seed: 1), again = Randomness(seed: 1), other = Randomness(seed: 2)
        let first = one.stream("threads").bytes(20)
        XCTAssertEqual(again.stream("threads").bytes(20), first)
        XCTAssertNotEqual(other.stream("threads").bytes(20), first)
        XCTAssertNotEqual(one.stream("otp").bytes(20), Randomness(seed: 1).stream("threads").bytes(20))
        XCTAssertTrue(one.stream("threads") === one.stream("threads"))
        XCTAssertNotEqual(one.stream("threads").bytes(20), first)
        one.restart("threads")
        XCTAssertEqual(one.stream("threads").bytes(20), first)
        XCTAssertNotEqual(Randomness().stream("threads").bytes(20), Randomness().stream("threads").bytes(20))
    }

    func testNumbersStayBelowTheBoundAndCoverIt() {
        let stream = Randomness(seed: 9).stream("otp")
        var seen = Set<UInt64>()
        for _ in 0..<2000 {
            let number = stream.number(below: 10)
            XCTAssertLessThan(number, 10)
            seen.insert(number)
        }
        XCTAssertEqual(seen.count, 10)
    }

    func testAWallClockSteppedBackHoldsStill() {
        let wall = Locked(Date(timeIntervalSince1970: 1000))
        let clock = ServerClock(wallClock: { wall.withLock { $0 } })
        XCTAssertEqual(clock.now(), Date(timeIntervalSince1970: 1000))
        wall.withLock { $0 = Date(timeIntervalSince1970: 900) }
        XCTAssertEqual(clock.now(), Date(timeIntervalSince1970: 1000), "never earlier than a stamp given")
        wall.withLock { $0 = Date(timeIntervalSince1970: 1001) }
        XCTAssertEqual(clock.now(), Date(timeIntervalSince1970: 1001))
        XCTAssertThrowsError(try clock.advance(by: -1))
        try? clock.advance(by: 10)
        XCTAssertEqual(clock.reading(), ServerClock.Reading(now: Date(timeIntervalSince1970: 1011), standsStill: true))
        try? clock.set(to: Date(timeIntervalSince1970: 5))
        XCTAssertEqual(clock.now(), Date(timeIntervalSince1970: 5), "set goes back when told")
    }

    func testInstantsAreReadAsRFC3339() {
        XCTAssertEqual(ServerClock.instant("2024-09-01T10:00:00Z"), Date(timeIntervalSince1970: 1_725_184_800))
        XCTAssertEqual(ServerClock.instant("2024-09-01t12:30:00.5+02:30"), Date(timeIntervalSince1970: 1_725_184_800.5))
        XCTAssertEqual(ServerClock.instant("2024-09-01T09:00:00-01:00"), Date(timeIntervalSince1970: 1_725_184_800))
        for text in ["2024-09-01T10:00:00", "2024-09-01 10:00:00Z", "2024-09-01T10:00:00.Z", "2024-09-31T10:00:00Z",
                     "2024-09-01T10:00:00+2:00", "2024-09-01T10:00:00Zjunk", "1725184800"] {
            XCTAssertNil(ServerClock.instant(text), text)
        }
        XCTAssertEqual(ServerClock.text(Date(timeIntervalSince1970: 1_725_184_800)), "2024-09-01T10:00:00Z")
        XCTAssertEqual(ServerClock.text(Date(timeIntervalSince1970: 1_725_184_800.25)), "2024-09-01T10:00:00.250Z")
    }
}
