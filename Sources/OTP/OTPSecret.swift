/// A token, keyfile password or user id: URL-safe base64 characters (docs/apis/otp.md#tokens), kept
/// as their 6-bit values, so 32 characters fit in three words. A user's secrets then take no heap
/// strings (no allocation, no reference counting) and compare and hash as three integers. How many
/// characters a secret has is known where it is kept (`length`, `userIDLength`).
struct OTPSecret: Equatable {
    static let length = 32
    static let userIDLength = 24
    private static let maxLength = 32

    private var words: (UInt64, UInt64, UInt64) = (0, 0, 0)

    /// The empty secret, a placeholder until a field is read.
    init() {}

    /// nil unless `utf8` is exactly `length` characters of A-Z, a-z, 0-9, - and _.
    init?(utf8: UnsafeBufferPointer<UInt8>, length: Int) {
        guard utf8.count == length, length <= Self.maxLength else { return nil }
        var outside = false
        for index in 0..<length {
            let (sextet, valid) = Self.sextet(of: utf8[index])
            outside = outside || !valid
            set(sextet, at: index)
        }
        if outside { return nil }
    }

    init?(_ text: String, length: Int) {
        var text = text
        guard let secret = text.withUTF8({ Self(utf8: $0, length: length) }) else { return nil }
        self = secret
    }

    /// `length` characters, each drawn from the system's cryptographic generator.
    static func random(length: Int) -> OTPSecret {
        var generator = SystemRandomNumberGenerator()
        var secret = OTPSecret()
        for index in 0..<length { secret.set(generator.next() & 63, at: index) }
        return secret
    }

    /// Six digits, leading zeros kept.
    static func code() -> String {
        var generator = SystemRandomNumberGenerator()
        let number = String(Int.random(in: 0...999_999, using: &generator))
        return String(repeating: "0", count: 6 - number.count) + number
    }

    func text(length: Int) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            for index in 0..<length { buffer[index] = Self.character(sextet(at: index)) }
            return length
        }
    }

    var hashValue64: UInt64 { OTPHash.of(words.0, words.1, words.2) }

    static func == (lhs: OTPSecret, rhs: OTPSecret) -> Bool {
        lhs.words == rhs.words
    }

    /// The character's place in the alphabet `A-Z a-z 0-9 - _`, and whether it is in it. Worked out
    /// without branches: the characters of random secrets would defeat a branch predictor.
    private static func sextet(of byte: UInt8) -> (UInt64, valid: Bool) {
        let upper = byte &- UInt8(ascii: "A") < 26, lower = byte &- UInt8(ascii: "a") < 26
        let digit = byte &- UInt8(ascii: "0") < 10, dash = byte == UInt8(ascii: "-"), underscore = byte == UInt8(ascii: "_")
        let value = upper ? byte &- UInt8(ascii: "A") : lower ? byte &- (UInt8(ascii: "a") - 26)
            : digit ? byte &+ (52 - UInt8(ascii: "0")) : underscore ? 63 : 62
        return (UInt64(value), upper || lower || digit || dash || underscore)
    }

    private static func character(_ sextet: UInt64) -> UInt8 {
        let value = UInt8(sextet)
        switch value {
        case 0..<26: return UInt8(ascii: "A") + value
        case 26..<52: return UInt8(ascii: "a") + value - 26
        case 52..<62: return UInt8(ascii: "0") + value - 52
        case 62: return UInt8(ascii: "-")
        default: return UInt8(ascii: "_")
        }
    }

    // Character `index` is bits 6 × index ..< 6 × index + 6 of the three words, low word first.

    private mutating func set(_ sextet: UInt64, at index: Int) {
        let bit = index * 6, word = bit >> 6, shift = bit & 63
        withUnsafeMutableBytes(of: &words) { raw in
            func add(_ bits: UInt64, to word: Int) {
                let offset = word * MemoryLayout<UInt64>.stride
                raw.storeBytes(of: raw.load(fromByteOffset: offset, as: UInt64.self) | bits, toByteOffset: offset, as: UInt64.self)
            }
            add(sextet << shift, to: word)
            if shift > 58 { add(sextet >> (64 - shift), to: word + 1) }
        }
    }

    private func sextet(at index: Int) -> UInt64 {
        let bit = index * 6, word = bit >> 6, shift = bit & 63
        return withUnsafeBytes(of: words) { raw in
            func load(_ word: Int) -> UInt64 { raw.load(fromByteOffset: word * MemoryLayout<UInt64>.stride, as: UInt64.self) }
            var value = load(word) >> shift
            if shift > 58 { value |= load(word + 1) << (64 - shift) }
            return value & 63
        }
    }
}
