/// 32 bits of a seeded multiply-and-fold hash of a key's bytes, read eight at a time, for the
/// open-addressing indexes that keep a key's hash beside a row's place instead of the key itself:
/// a short key costs a few multiplications, where SipHash (`Hasher`) costs several times more.
/// The seed is drawn afresh by each process, so keys sent to the server cannot be chosen in
/// advance to collide.
public enum KeyHash {
    @usableFromInline static let seed = UInt64.random(in: .min ... .max)

    @inlinable
    public static func of(_ key: UnsafeBufferPointer<UInt8>) -> UInt32 {
        of(UnsafeRawBufferPointer(key))
    }

    /// The hash of the bytes of a value held in integers alone (an id's words), as a key.
    @inlinable
    public static func of<Value>(bytesOf value: Value) -> UInt32 {
        withUnsafeBytes(of: value) { of($0) }
    }

    @inlinable
    public static func of(_ raw: UnsafeRawBufferPointer) -> UInt32 {
        var hash = seed
        var offset = 0
        while offset + 8 <= raw.count {
            hash = mix(hash, raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < raw.count {
            var tail: UInt64 = 0
            for index in (offset..<raw.count).reversed() { tail = tail << 8 | UInt64(raw[index]) }
            hash = mix(hash, tail)
        }
        // The length last, apart from the bytes: mixed in with the first word, "b" and "a\0" collided.
        return UInt32(truncatingIfNeeded: mix(hash, 0x9E37_79B9_7F4A_7C15 ^ UInt64(raw.count)) >> 32)
    }

    /// The two halves of the 128-bit product, combined.
    @inlinable
    static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let product = (hash ^ word).multipliedFullWidth(by: 0xA076_1D64_78BD_642F ^ seed)
        return product.high ^ product.low
    }
}
