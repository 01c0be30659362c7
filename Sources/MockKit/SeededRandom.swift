import Foundation

/// Where every value an API mints (tokens, codes, ids) draws its randomness: the system's
/// generator, or with `--random-seed N` one stream per API, derived from N and the API's name, that
/// starts again at each reset of that API (docs/admin.md#the-clock-and-random-values). Per-API
/// streams keep one API's reset from changing what another mints next.
public final class Randomness: Sendable {
    /// nil: the system's generator, a different value every run.
    public let seed: UInt64?
    private let streams = Locked<[String: RandomStream]>([:])

    public init(seed: UInt64? = nil) {
        self.seed = seed
    }

    /// The stream of the API called `name`, the same object on every call.
    public func stream(_ name: String) -> RandomStream {
        streams.withLock { streams in
            if let stream = streams[name] { return stream }
            let stream = RandomStream(seed: seed.map { Self.derive($0, name) })
            streams[name] = stream
            return stream
        }
    }

    /// The API called `name` mints from its first value again (with a seed; nothing without one).
    public func restart(_ name: String) {
        stream(name).restart()
    }

    /// The seed of one API's stream: the seed with the name's FNV-1a hash, mixed by the generator's
    /// own seeding.
    private static func derive(_ seed: UInt64, _ name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return seed ^ hash
    }
}

/// One API's source of random values; shared by the API's handlers on every loop thread.
public final class RandomStream: RandomNumberGenerator, @unchecked Sendable {
    private let seed: UInt64?
    private let generator: Locked<Xoshiro256StarStar?>

    init(seed: UInt64?) {
        self.seed = seed
        generator = Locked(seed.map(Xoshiro256StarStar.init(seed:)))
    }

    public func next() -> UInt64 {
        var system = SystemRandomNumberGenerator()
        return seed == nil ? system.next() : generator.withLock { $0!.next() }
    }

    /// `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            var word = next()
            for _ in 0..<min(8, count - bytes.count) {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return bytes
    }

    /// A whole number from 0 to `bound - 1`, without the bias of a plain remainder (Lemire's
    /// method: our own, so a seed gives the same numbers whatever the standard library does).
    public func number(below bound: UInt64) -> UInt64 {
        precondition(bound > 0)
        let threshold = (0 &- bound) % bound
        while true {
            let (high, low) = next().multipliedFullWidth(by: bound)
            if low >= threshold { return high }
        }
    }

    func restart() {
        guard let seed else { return }
        generator.withLock { $0 = Xoshiro256StarStar(seed: seed) }
    }
}

/// xoshiro256** (Blackman and Vigna, 2018), its state filled by SplitMix64 from a 64-bit seed:
/// small, fast, and the same sequence on every platform, which Foundation does not promise.
struct Xoshiro256StarStar: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init(state: (UInt64, UInt64, UInt64, UInt64)) {
        self.state = state
    }

    init(seed: UInt64) {
        var mixer = seed
        func splitMix() -> UInt64 {
            mixer &+= 0x9e37_79b9_7f4a_7c15
            var z = mixer
            z ^= z >> 30
            z &*= 0xbf58_476d_1ce4_e5b9
            z ^= z >> 27
            z &*= 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
        let first = splitMix(), second = splitMix(), third = splitMix()
        state = (first, second, third, splitMix())
    }

    mutating func next() -> UInt64 {
        // `&*=`, not `&*`: Swift 6 declares FixedWidthInteger's `&*` available from macOS 15 only.
        var scaled = state.1
        scaled &*= 5
        var result = rotate(scaled, 7)
        result &*= 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
