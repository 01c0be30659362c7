/// An open-addressing table of non-zero 64-bit entries, each able to say where its probe starts
/// (`home`), so the table grows without hashing a name again. Up to seven eighths full: an entry
/// is compared by its own bits first, so even a long probe reads one or two cache lines, while
/// a table half as large is half the memory to touch. What an entry stands for (a user's place,
/// a token) is the caller's.
struct InternProductsSlots {
    private var slots = [UInt64](repeating: 0, count: 16)
    private var count = 0

    /// The first entry on the probe from `home` that `matches` accepts.
    func first(from home: UInt64, where matches: (UInt64) -> Bool) -> UInt64? {
        var slot = Int(truncatingIfNeeded: home) & (slots.count - 1)
        while slots[slot] != 0 {
            if matches(slots[slot]) { return slots[slot] }
            slot = (slot + 1) & (slots.count - 1)
        }
        return nil
    }

    /// Adds `entry` (never 0), unless an entry on its probe is one `matches` accepts: then that
    /// one, and nothing changes.
    mutating func insert(_ entry: UInt64, home: (UInt64) -> UInt64, where matches: (UInt64) -> Bool) -> UInt64? {
        var slot = Int(truncatingIfNeeded: home(entry)) & (slots.count - 1)
        while slots[slot] != 0 {
            if matches(slots[slot]) { return slots[slot] }
            slot = (slot + 1) & (slots.count - 1)
        }
        slots[slot] = entry
        count += 1
        if count * 8 > slots.count * 7 { grow(home: home) }
        return nil
    }

    /// Twice the slots, each entry placed again from its home.
    private mutating func grow(home: (UInt64) -> UInt64) {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        for entry in old where entry != 0 {
            var slot = Int(truncatingIfNeeded: home(entry)) & (slots.count - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
            slots[slot] = entry
        }
    }
}
