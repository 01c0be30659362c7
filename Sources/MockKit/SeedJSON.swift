import Foundation
import MockHTTP
import MockSupport

/// The JSON text of a seed or state document. An API builds its rows straight from these bytes
/// with `read` (no `JSONValue` tree first, each string made once from its bytes, numbers read in
/// place), which is what lets a seed of a million rows load in a fraction of a second.
///
/// Seed files (`SeedDirectory.document`), `PUT /_mock/state/{api}` bodies and each API's part of
/// the `--state` snapshot all come this way: a part of a larger text is read as it is, with
/// `SeedJSON(bytes[range])`, and paths in errors start at that part.
public struct SeedJSON: Sendable {
    private let text: ArraySlice<UInt8>
    /// The file the text is in instead, mapped (`SeedDirectory.mappedDocument`).
    private let mapping: MappedText?
    /// Nested arrays and objects allowed, counted from the document's root.
    public let maxDepth: Int

    public init(_ bytes: ArraySlice<UInt8>, maxDepth: Int = 128) {
        text = bytes
        mapping = nil
        self.maxDepth = maxDepth
    }

    init(_ file: MappedFile) {
        text = []
        mapping = MappedText(file)
        maxDepth = 128
    }

    /// The text. A mapped document's is copied into memory, whole, the first time: read those
    /// with `withUnsafeBytes` and `count`, which copy nothing.
    public var bytes: ArraySlice<UInt8> {
        mapping?.copy ?? text
    }

    /// How many bytes the text has.
    public var count: Int {
        mapping?.file.bytes.count ?? text.count
    }

    /// Calls `body` with the text, in place (offsets in it are a reader's `offset`s).
    public func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        guard let file = mapping?.file else { return text.withUnsafeBufferPointer(body) }
        return withExtendedLifetime(file) { body(file.bytes) }
    }

    public init(_ bytes: [UInt8], maxDepth: Int = 128) {
        self.init(bytes[...], maxDepth: maxDepth)
    }

    /// An already parsed value (a request body, a replayed state), written out to be read.
    public init(_ value: JSONValue) {
        var writer = JSONWriter(escapeSlash: false)
        writer.value(value)
        self.init(writer.bytes)
    }

    /// Reads the document: `body` gets a reader at its root value. The document must be exactly
    /// one JSON value; when it is not, that is the error, wherever it is and whatever `body` found.
    public func read<Result>(_ body: (inout SeedReader) throws(SeedError) -> Result) throws(SeedError) -> Result {
        let outcome = withUnsafeBytes { buffer in
            Swift.Result { () throws(SeedError) -> Result in
                var root = SeedReader(JSONScanner(buffer), depth: 0, maxDepth: maxDepth)
                do throws(SeedError) {
                    root.scanner.skipWhitespace()
                    let result = try body(&root)
                    try root.skip()
                    root.scanner.skipWhitespace()
                    guard root.scanner.atEnd else { throw SeedError(syntax: root.scanner.error("unexpected data after the JSON value")) }
                    return result
                } catch {
                    guard error.syntaxError == nil else { throw error }
                    // Read front to back, a problem in a row can be found before a syntax error
                    // further on; the syntax error is the one to fix first.
                    do throws(JSONParseError) {
                        try JSONParser.validate(buffer, maxDepth: maxDepth)
                    } catch {
                        throw SeedError(syntax: error)
                    }
                    throw error
                }
            }
        }
        return try outcome.get()
    }
}

/// The member names of an object an API reads, in the order it wants them handled.
public final class SeedKeys: @unchecked Sendable {
    let names: [String]
    let count: Int
    let requiredCount: Int
    /// Every name's UTF-8, one after the other, and where each starts (`starts[count]` is the end):
    /// compared with each member name read, so kept where reading them takes no reference counting.
    private let utf8: UnsafeMutablePointer<UInt8>
    private let starts: UnsafeMutablePointer<Int>
    /// Whether each name is written in JSON as its own bytes between quotes (it has no character
    /// that needs an escape).
    private let plain: UnsafeMutablePointer<Bool>

    /// `required` keys first, then `optional` ones (absent or `null` is the same for those).
    public init(_ required: [String], optional: [String] = []) {
        names = required + optional
        count = names.count
        requiredCount = required.count
        precondition(count <= SeedReader.Waiting.capacity, "at most \(SeedReader.Waiting.capacity) keys")
        let all = names.flatMap(\.utf8)
        utf8 = .allocate(capacity: max(all.count, 1))
        utf8.initialize(from: all, count: all.count)
        starts = .allocate(capacity: count + 1)
        starts[0] = 0
        for (index, name) in names.enumerated() { starts[index + 1] = starts[index] + name.utf8.count }
        plain = .allocate(capacity: max(count, 1))
        for (index, name) in names.enumerated() {
            plain[index] = !name.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        }
    }

    deinit {
        utf8.deallocate()
        starts.deallocate()
        plain.deallocate()
    }

    /// The length of key `index`'s name written plainly, quotes included, when the text at
    /// `position` is exactly that (`"name"`); 0 otherwise. Such a member name needs no scanning:
    /// the bytes are those of a well-formed string without escapes.
    @inline(__always)
    func plainSpelling(of index: Int, in text: UnsafeBufferPointer<UInt8>, at position: Int) -> Int {
        let length = starts[index + 1] - starts[index]
        guard plain[index], position + length + 2 <= text.count, let base = text.baseAddress,
              base[position] == UInt8(ascii: "\""), base[position + length + 1] == UInt8(ascii: "\"") else { return 0 }
        let name = utf8 + starts[index], spelled = base + position + 1
        for offset in 0..<length where spelled[offset] != name[offset] { return 0 }
        return length + 2
    }

    /// The index of the key a member name spells, if any; `expected` is tried first.
    func index(of token: JSONScanner.StringToken, in scanner: JSONScanner, expected: Int) -> Int? {
        if token.hasEscapes {
            let name = scanner.decode(token)
            return names.firstIndex { $0.utf8.elementsEqual(name.utf8) }
        }
        guard let text = scanner.bytes.baseAddress.map({ $0 + token.content.lowerBound }) else { return nil }
        let length = token.content.count
        func spells(_ index: Int) -> Bool {
            starts[index + 1] - starts[index] == length && memcmp(utf8 + starts[index], text, length) == 0
        }
        if expected < count, spells(expected) { return expected }
        return (0..<count).first(where: spells)
    }
}

/// A value of a seed or state document, read in place. The typed reads check the value and move
/// past it; a problem is a `SeedError` with the value's JSONPath (`$.users[3].email`), spelled out
/// only then, by walking the text from the root to the value.
public struct SeedReader {
    var scanner: JSONScanner
    /// Where the value starts.
    public let offset: Int
    let depth: Int
    let maxDepth: Int

    init(_ scanner: JSONScanner, depth: Int, maxDepth: Int) {
        self.scanner = scanner
        offset = scanner.position
        self.depth = depth
        self.maxDepth = maxDepth
    }

    private func child(at position: Int) -> SeedReader {
        SeedReader(JSONScanner(scanner.bytes, position: position), depth: depth + 1, maxDepth: maxDepth)
    }

    // MARK: Scalars

    public mutating func string() throws(SeedError) -> String {
        guard scanner.current == UInt8(ascii: "\"") else { throw fail("expected a string") }
        return scanner.decode(try syntax { () throws(JSONParseError) in try scanner.scanString() })
    }

    /// A non-empty string, the usual rule for names and passwords.
    public mutating func text() throws(SeedError) -> String {
        let value = try string()
        guard !value.isEmpty else { throw fail("must not be empty") }
        return value
    }

    /// An exactly integral number that fits (`2`, `2.0` and `2e0` are all 2).
    public mutating func int() throws(SeedError) -> Int {
        guard let first = scanner.current, first == UInt8(ascii: "-") || (48...57).contains(first) else {
            throw fail("expected an integer")
        }
        let number = try syntax { () throws(JSONParseError) in try scanner.scanNumber() }
        guard let value = number.exactInt(in: scanner.bytes) else { throw fail("expected an integer") }
        return value
    }

    public mutating func bool() throws(SeedError) -> Bool {
        switch scanner.current {
        case UInt8(ascii: "t"):
            try syntax { () throws(JSONParseError) in try scanner.expectLiteral("true") }
            return true
        case UInt8(ascii: "f"):
            try syntax { () throws(JSONParseError) in try scanner.expectLiteral("false") }
            return false
        default:
            throw fail("expected true or false")
        }
    }

    public var isNull: Bool { scanner.current == UInt8(ascii: "n") }

    /// Moves past the value, checking it, unless a read did already.
    mutating func skip() throws(SeedError) {
        guard scanner.position == offset else { return }
        try syntax { () throws(JSONParseError) in try scanner.skipValue(depth: depth, maxDepth: maxDepth) }
    }

    // MARK: Containers

    /// Calls `body` with each element of an array, in order. An element `body` leaves unread is
    /// checked and skipped.
    public mutating func elements(_ body: (inout SeedReader) throws(SeedError) -> Void) throws(SeedError) {
        guard scanner.current == UInt8(ascii: "[") else { throw fail("expected an array") }
        try open()
        if scanner.current == UInt8(ascii: "]") {
            scanner.position += 1
            return
        }
        while true {
            var element = child(at: scanner.position)
            try body(&element)
            try element.skip()
            scanner.position = element.scanner.position
            guard try next(closing: UInt8(ascii: "]"), else: "expected ',' or ']'") else { return }
        }
    }

    /// How many elements the array has, counted by checking them without reading them: a table
    /// sized for its rows up front is filled without being rehashed as it grows.
    public func count() throws(SeedError) -> Int {
        var copy = self, count = 0
        try copy.elements { _ throws(SeedError) in count += 1 }
        return count
    }

    /// The members of an object, each name with where its value starts, in the order of the text
    /// (a name given twice is there twice); every value is checked.
    mutating func memberOffsets() throws(SeedError) -> [(name: JSONScanner.StringToken, offset: Int)] {
        guard scanner.current == UInt8(ascii: "{") else { throw fail("expected an object") }
        try open()
        var found: [(name: JSONScanner.StringToken, offset: Int)] = []
        guard scanner.current != UInt8(ascii: "}") else {
            scanner.position += 1
            return found
        }
        while true {
            let key = try syntax { () throws(JSONParseError) in try scanner.scanKey() }
            found.append((key, scanner.position))
            var value = child(at: scanner.position)
            try value.skip()
            scanner.position = value.scanner.position
            guard try next(closing: UInt8(ascii: "}"), else: "expected ',' or '}'") else { return found }
        }
    }

    /// A reader of the value that starts at `offset` in this document, one level down.
    func reader(at offset: Int) -> SeedReader {
        child(at: offset)
    }

    /// Calls `body` with the index in `keys` and the value of each member `keys` names, in the
    /// order of `keys` whatever their order in the text: a member that comes before those it
    /// follows in `keys` waits (its place noted) until they are read or found absent at the end of
    /// the object. An absent required key is an error; other members are checked and skipped. A
    /// key repeated after it was read is an error (one not yet read: the last one counts).
    public mutating func members(_ keys: SeedKeys, _ body: (Int, inout SeedReader) throws(SeedError) -> Void) throws(SeedError) {
        guard scanner.current == UInt8(ascii: "{") else { throw fail("expected an object") }
        try open()
        var waiting = Waiting()
        var handled = 0
        /// Reads one member's value; returns where it ends.
        func read(_ index: Int, at position: Int) throws(SeedError) -> Int {
            var value = child(at: position)
            if index < keys.requiredCount || !value.isNull { try body(index, &value) }
            try value.skip()
            return value.scanner.position
        }
        /// Reads the member at `position`, then every one waiting right behind it.
        func handle(_ index: Int, at position: Int) throws(SeedError) -> Int {
            let end = try read(index, at: position)
            handled = index + 1
            while handled < keys.count, let early = waiting[handled] {
                _ = try read(handled, at: early)
                handled += 1
            }
            return end
        }
        if scanner.current != UInt8(ascii: "}") {
            while true {
                let index: Int?
                // Members mostly come in the order of `keys`: the expected name is checked in place.
                let spelling = handled < keys.count ? keys.plainSpelling(of: handled, in: scanner.bytes, at: scanner.position) : 0
                if spelling > 0 {
                    scanner.position += spelling
                    try syntax { () throws(JSONParseError) in try scanner.scanColon() }
                    index = handled
                } else {
                    let key = try syntax { () throws(JSONParseError) in try scanner.scanKey() }
                    index = keys.index(of: key, in: scanner, expected: handled)
                }
                if let index, index == handled {
                    scanner.position = try handle(index, at: scanner.position)
                } else {
                    if let index {
                        guard index > handled else { throw fail("\(keys.names[index]) is given twice") }
                        waiting[index] = scanner.position
                    }
                    var value = child(at: scanner.position)
                    try value.skip()
                    scanner.position = value.scanner.position
                }
                guard try next(closing: UInt8(ascii: "}"), else: "expected ',' or '}'") else { break }
            }
        }
        let end = scanner.position
        // The object is over: what still waits follows keys that are absent.
        while handled < keys.count {
            if let position = waiting[handled] {
                _ = try handle(handled, at: position)
            } else if handled < keys.requiredCount {
                throw SeedError(path: path(of: offset) + "." + keys.names[handled], problem: "missing")
            } else {
                handled += 1
            }
        }
        scanner.position = end
    }

    /// Past an opening bracket and the space after it.
    @inline(__always)
    private mutating func open() throws(SeedError) {
        guard depth < maxDepth else { throw SeedError(syntax: scanner.error("nesting deeper than \(maxDepth)")) }
        scanner.position += 1
        scanner.skipWhitespace()
    }

    /// After a value in a container: true when a comma leads to another one, false past the closing bracket.
    @inline(__always)
    private mutating func next(closing: UInt8, else message: String) throws(SeedError) -> Bool {
        scanner.skipWhitespace()
        switch scanner.current {
        case UInt8(ascii: ","):
            scanner.position += 1
            scanner.skipWhitespace()
            return true
        case closing:
            scanner.position += 1
            return false
        default:
            throw SeedError(syntax: scanner.error(message))
        }
    }

    /// Positions of members that came before their turn, by key index.
    struct Waiting {
        static let capacity = 8
        private var positions = (-1, -1, -1, -1, -1, -1, -1, -1)

        subscript(index: Int) -> Int? {
            get {
                let position = withUnsafeBytes(of: positions) { $0.load(fromByteOffset: index * MemoryLayout<Int>.stride, as: Int.self) }
                return position < 0 ? nil : position
            }
            set {
                withUnsafeMutableBytes(of: &positions) { $0.storeBytes(of: newValue ?? -1, toByteOffset: index * MemoryLayout<Int>.stride, as: Int.self) }
            }
        }
    }

    // MARK: Problems

    /// A problem with this value.
    public func fail(_ problem: String) -> SeedError {
        fail(at: offset, problem)
    }

    /// A problem with the value that starts at `offset` (a reader's `offset`) in this document.
    public func fail(at offset: Int, _ problem: String) -> SeedError {
        SeedError(path: path(of: offset), problem: problem)
    }

    private func syntax<Result>(_ scan: () throws(JSONParseError) -> Result) throws(SeedError) -> Result {
        do {
            return try scan()
        } catch {
            throw SeedError(syntax: error)
        }
    }

    /// The JSONPath of the value that starts at `target`: `$.users[3].email`. The text up to it has
    /// been read already, so it is valid.
    public func path(of target: Int) -> String {
        var walker = JSONScanner(scanner.bytes)
        var path = "$"
        walker.skipWhitespace()
        descending: while walker.position < target, let bracket = walker.current,
                          bracket == UInt8(ascii: "{") || bracket == UInt8(ascii: "[") {
            walker.position += 1
            var index = 0
            while true {
                walker.skipWhitespace()
                var step = "[\(index)]"
                if bracket == UInt8(ascii: "{") {
                    guard let key = try? walker.scanKey() else { break descending }
                    step = "." + walker.decode(key)
                }
                let start = walker.position
                if start == target {
                    return path + step
                }
                guard (try? walker.skipValue(depth: 0, maxDepth: .max)) != nil else { break descending }
                if walker.position > target {
                    path += step
                    walker.position = start
                    continue descending
                }
                walker.skipWhitespace()
                guard walker.current == UInt8(ascii: ",") else { break descending }
                walker.position += 1
                index += 1
            }
        }
        return path
    }
}

extension JSONScanner {
    /// Whether the member name `token` (of this text) is `name`.
    func spells(_ name: String, _ token: StringToken) -> Bool {
        guard !token.hasEscapes else { return decode(token).utf8.elementsEqual(name.utf8) }
        var name = name
        return name.withUTF8 { utf8 in
            utf8.count == token.content.count
                && (utf8.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress! + token.content.lowerBound, utf8.count) == 0)
        }
    }
}

/// A mapped seed file, and its copy once `SeedJSON.bytes` asks for one.
private final class MappedText: Sendable {
    let file: MappedFile
    private let copied = Locked<ArraySlice<UInt8>?>(nil)

    init(_ file: MappedFile) {
        self.file = file
    }

    var copy: ArraySlice<UInt8> {
        copied.withLock { copy in
            if let copy { return copy }
            let made = Array(file.bytes)[...]
            copy = made
            return made
        }
    }
}

/// A whole file, read straight into the array; nil when it cannot be read.
func contentsOfFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0 else { return nil }
    let size = Int(status.st_size)
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
        HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
        while count < size {
            let got = read(fd, buffer.baseAddress! + count, size - count)
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                failed = got < 0
                return
            }
            count += got
        }
    }
    return failed ? nil : bytes
}
