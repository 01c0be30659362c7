import MockHTTP
import MockKit
import MockSupport

/// A `created_at` time stamp, `YYYY-MM-DD HH:MM:SS` in UTC, kept as its seconds since 1970, so
/// messages sort by time. Only stamps that name a real second are accepted (the MySQL column held
/// nothing else), so every one is written back byte for byte.
struct Stamp: Comparable {
    let unixSeconds: Int

    init(unixSeconds: Int) {
        self.unixSeconds = unixSeconds
    }

    /// A seed's `created_at`.
    init(seed value: inout SeedReader) throws(SeedError) {
        let text = try value.string()
        guard let time = CivilTime(sqlText: text) else { throw value.fail("expected YYYY-MM-DD HH:MM:SS, got \(text)") }
        unixSeconds = time.unixSeconds
    }

    /// The stamp as it was read (or as a new row's clock gave it).
    var text: String { CivilTime(unixSeconds: unixSeconds).sqlText }

    static func < (lhs: Stamp, rhs: Stamp) -> Bool { lhs.unixSeconds < rhs.unixSeconds }
}
