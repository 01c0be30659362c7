import MockKit
import XCTest

final class KeyHashTests: XCTestCase {
    private func hash(_ text: String) -> UInt32 {
        var text = text
        return text.withUTF8(KeyHash.of)
    }

    /// Every byte counts, in words and in the tail, and so does the length (a key and the same
    /// key with a zero byte more).
    func testEqualKeysHashAlikeAndKeysDifferingInOneByteApart() {
        let keys = ["", "a", "a\u{0}", "b", "abcdefg", "abcdefgh", "abcdefgi", "bbcdefgh", "abcdefghi", "abcdefghj",
                    "someone@example.com", "someone@example.con", "Someone@example.com"]
        XCTAssertEqual(Set(keys.map(hash)).count, keys.count)
        for key in keys { XCTAssertEqual(hash(key), hash(String(key))) }
    }

    /// 100,000 keys as a seed names them spread over the slots of a table: no slot of 2^16 (the
    /// top bits, as one index takes them, or the bottom bits, as another) holds more than a few dozen.
    func testKeysLikeASeedsSpreadOverTheTopAndBottomBits() {
        var top = [Int](repeating: 0, count: 1 << 16), bottom = top
        for number in 0..<100_000 {
            let bits = hash("user\(number)@example.com")
            top[Int(bits >> 16)] += 1
            bottom[Int(bits & 0xFFFF)] += 1
        }
        XCTAssertLessThan(top.max()!, 20)
        XCTAssertLessThan(bottom.max()!, 20)
    }
}
