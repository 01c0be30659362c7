import MockKit

/// Where the row with each id is, whatever its kind: its place (table and slot) filed under its
/// id's hash; the id itself is read from the row.
struct CSE118IDIndex {
    typealias Place = CSE118State.Place

    private var table = TaggedRowIndex()

    /// The place of the row with `id`, if one has it.
    func find(_ id: CSE118ID, idAt: (Place) -> CSE118ID) -> Place? {
        table.row(hash: hash(id)) { idAt(Place(row: $0)) == id }.map(Place.init(row:))
    }

    /// Files `place` under `id`, which must not be filed already.
    mutating func insert(_ place: Place, for id: CSE118ID) {
        table.add(place.row, hash: hash(id))
    }

    /// Keeps `place` under `id` to be filed with the others by `filePending`; until then `find`
    /// does not see it, and nothing checks whether `id` is filed already.
    mutating func fileLater(_ place: Place, for id: CSE118ID) {
        table.fileLater(place.row, hash: hash(id))
    }

    /// Files what `fileLater` kept; returns the pairs of places whose ids may be the same.
    mutating func filePending() -> [(filed: Place, kept: Place)] {
        table.filePending().map { (Place(row: $0.filed), Place(row: $0.kept)) }
    }

    /// Removes the entry of `id` at `place`, if there is one.
    mutating func remove(_ id: CSE118ID, at place: Place) {
        table.remove(place.row, hash: hash(id))
    }

    private func hash(_ id: CSE118ID) -> UInt32 { KeyHash.of(bytesOf: id) }
}

/// Members by email, whatever its letter case: each member's slot filed under the hash of their
/// email's key, its `lowercased()` form, which is compared byte for byte; the email is read from
/// where the member's row says it is.
struct CSE118EmailIndex {
    /// Calls its second argument with the UTF-8 of the email of the member in a slot.
    typealias EmailOf = (Int32, (UnsafeRawBufferPointer) -> Bool) -> Bool

    private var table = TaggedRowIndex()

    /// The slot of the member whose email has the same key as `email`, if one has.
    func find(_ email: UnsafeRawBufferPointer, emailOf: EmailOf) -> Int32? {
        Self.withKey(email) { key in
            table.row(hash: KeyHash.of(key)) { slot in
                emailOf(Int32(slot)) { Self.withKey($0) { $0.elementsEqual(key) } }
            }.map { Int32($0) }
        }
    }

    /// What an email is filed under.
    func hash(_ email: UnsafeRawBufferPointer) -> UInt32 {
        Self.withKey(email) { KeyHash.of($0) }
    }

    /// Files `slot` under `hash`, that of an email whose key must not be filed already.
    mutating func insert(_ slot: Int32, _ hash: UInt32) {
        table.add(Int(slot), hash: hash)
    }

    /// Keeps `slot` under `hash` to be filed with the others by `filePending`; until then `find`
    /// does not see it, and nothing checks whether its key is filed already.
    mutating func fileLater(_ slot: Int32, _ hash: UInt32) {
        table.fileLater(Int(slot), hash: hash)
    }

    /// Files what `fileLater` kept; returns the pairs of slots whose emails may have the same key.
    mutating func filePending() -> [(filed: Int32, kept: Int32)] {
        table.filePending().map { (Int32($0.filed), Int32($0.kept)) }
    }

    mutating func reserveCapacity(_ total: Int) { table.reserveCapacity(total) }

    static func sameKey(_ email: UnsafeRawBufferPointer, _ other: UnsafeRawBufferPointer) -> Bool {
        withKey(email) { key in withKey(other) { $0.elementsEqual(key) } }
    }

    /// Calls `body` with the UTF-8 of the email's key: the email's own bytes when lowering changes
    /// nothing (no upper case ASCII, nothing past ASCII), as for nearly every email.
    private static func withKey<Result>(_ email: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        guard email.contains(where: { $0 >= 0x80 || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else { return body(email) }
        var key = String(decoding: email, as: UTF8.self).lowercased()
        return key.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}
