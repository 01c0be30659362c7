import MockKit

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
        // No branch on what a character is: its value is looked up, and one outside the alphabet
        // leaves a bit above the six set.
        var packer = Packer(), outside: UInt8 = 0
        for byte in utf8 {
            let sextet = Self.sextets[Int(byte)]
            outside |= sextet
            packer.append(UInt64(sextet))
        }
        guard outside < 64 else { return nil }
        words = packer.finished
    }

    init?(_ text: String, length: Int) {
        var text = text
        guard let secret = text.withUTF8({ Self(utf8: $0, length: length) }) else { return nil }
        self = secret
    }

    /// `length` characters, each drawn from the API's stream.
    static func random(length: Int, _ random: RandomStream) -> OTPSecret {
        var packer = Packer(), secret = OTPSecret()
        for _ in 0..<length { packer.append(random.next() & 63) }
        secret.words = packer.finished
        return secret
    }

    /// Six digits, leading zeros kept.
    static func code(_ random: RandomStream) -> String {
        let number = String(random.number(below: 1_000_000))
        return String(repeating: "0", count: 6 - number.count) + number
    }

    func text(length: Int) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            for index in 0..<length { buffer[index] = Self.character(sextet(at: index)) }
            return length
        }
    }

    var keyHash: UInt32 { KeyHash.of(bytesOf: words) }

    static func == (lhs: OTPSecret, rhs: OTPSecret) -> Bool {
        lhs.words == rhs.words
    }

    /// The alphabet in the order of the characters' values.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's value in `alphabet`; 255 for a byte that is not in it.
    private static let sextets: [UInt8] = {
        var sextets = [UInt8](repeating: 255, count: 256)
        for (value, character) in alphabet.enumerated() { sextets[Int(character)] = UInt8(value) }
        return sextets
    }()

    private static func character(_ sextet: UInt64) -> UInt8 { alphabet[Int(sextet)] }

    // Character `index` is bits 6 × index ..< 6 × index + 6 of the three words, low word first.

    /// Fills the words six bits at a time, the word being filled kept in a register.
    private struct Packer {
        private var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        private var filling: UInt64 = 0
        private var word = 0
        /// Bits of `filling` already used.
        private var used = 0

        mutating func append(_ sextet: UInt64) {
            filling |= sextet &<< used
            used += 6
            guard used >= 64 else { return }
            // The bits that did not fit start the next word.
            store()
            used -= 64
            filling = sextet &>> (6 - used)
        }

        var finished: (UInt64, UInt64, UInt64) {
            var packer = self
            if packer.used > 0 { packer.store() }
            return packer.words
        }

        private mutating func store() {
            switch word {
            case 0: words.0 = filling
            case 1: words.1 = filling
            default: words.2 = filling
            }
            word += 1
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
