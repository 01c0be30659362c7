import Foundation
import MockHTTP
import MockSupport

/// The JSON text of a seed or state document. The kit builds an API's rows straight from these
/// bytes with `read` and `SeedFields` (no `JSONValue` tree first, each string made once from its
/// bytes, numbers read in place).
///
/// Seed files (`SeedDirectory.document`), `PUT /_mock/state/{api}` bodies and each API's part of
/// the `--state` snapshot all come this way: a part of a larger text is read as it is, with
/// `SeedJSON(bytes[range])`, and paths in errors start at that part.
public struct SeedJSON: Sendable {
    /// The text.
    public let bytes: ArraySlice<UInt8>
    /// Nested arrays and objects allowed, counted from the document's root.
    public let maxDepth: Int

    public init(_ bytes: ArraySlice<UInt8>, maxDepth: Int = 128) {
        self.bytes = bytes
        self.maxDepth = maxDepth
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
        let outcome = bytes.withUnsafeBufferPointer { buffer in
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

/// A value of a seed or state document, read in place. The typed reads check the value and move
/// past it; a problem is a `SeedError` with the value's JSONPath (`$.users[3].email`), spelled out
/// only then, by walking the text from the root to the value.
public struct SeedReader {
    var scanner: JSONScanner
    /// Where the value starts.
    public let offset: Int
    let depth: Int
    let maxDepth: Int
    /// What checking the value found, when its object was checked first (`memberValues`): a
    /// string's extent, or an array's element count. Reading it then does not scan it again.
    private var checkedString: JSONScanner.StringToken?
    private var checkedCount: Int?
    /// Whether the text of the value was checked already, by the skip that found where it (or
    /// what holds it) ends: a nested value is then skipped by its brackets alone, so a row nested
    /// three deep (cse118's messages) is not checked three times before it is read.
    private var isChecked = false

    init(_ scanner: JSONScanner, depth: Int, maxDepth: Int) {
        self.scanner = scanner
        offset = scanner.position
        self.depth = depth
        self.maxDepth = maxDepth
    }

    private func child(at position: Int) -> SeedReader {
        var child = SeedReader(JSONScanner(scanner.bytes, position: position), depth: depth + 1, maxDepth: maxDepth)
        child.isChecked = isChecked
        return child
    }

    // MARK: Scalars

    public mutating func string() throws(SeedError) -> String {
        scanner.decode(try stringToken())
    }

    /// The string's UTF-8 given to `body`, without making a `String` of it unless it has escapes
    /// (an id parsed from its text).
    public mutating func string<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) throws(SeedError) -> Result {
        let token = try stringToken()
        guard !token.hasEscapes else {
            var decoded = scanner.decode(token)
            return decoded.withUTF8(body)
        }
        return body(UnsafeBufferPointer(rebasing: scanner.bytes[token.content]))
    }

    /// Moves past the string, checked here or already by `memberValues`.
    private mutating func stringToken() throws(SeedError) -> JSONScanner.StringToken {
        guard scanner.current == UInt8(ascii: "\"") else { throw fail("expected a string") }
        if let token = checkedString {
            scanner.position = token.content.upperBound + 1
            return token
        }
        return try syntax { () throws(JSONParseError) in try scanner.scanString() }
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
        _ = try skipChecking()
    }

    /// Moves past the value, checking it unless that was done; how many elements or members it has.
    private mutating func skipChecking() throws(SeedError) -> Int {
        guard isChecked else {
            return try syntax { () throws(JSONParseError) in try scanner.skipValue(depth: depth, maxDepth: maxDepth) }
        }
        return scanner.skipChecked()
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

    /// Calls `body` with each element of an array, read as an object (a table's rows): one list
    /// of members serves every element, not one made and freed for each.
    public mutating func objects(_ body: (SeedFields) throws(SeedError) -> Void) throws(SeedError) {
        var members: [SeedFields.Member] = []
        members.reserveCapacity(8)
        try elements { item throws(SeedError) in try body(SeedFields(&item, into: &members)) }
    }

    /// How many elements the array has, counted by checking them without reading them: a table
    /// sized for its rows up front is filled without being rehashed as it grows.
    public func count() throws(SeedError) -> Int {
        if scanner.current == UInt8(ascii: "["), let checkedCount { return checkedCount }
        var copy = self, count = 0
        try copy.elements { _ throws(SeedError) in count += 1 }
        return count
    }

    /// The members of an object, each name with a reader of its value, in the order of the text
    /// (a name given twice is there twice); every value is checked, and what that found kept in
    /// its reader.
    mutating func memberValues() throws(SeedError) -> [SeedFields.Member] {
        var found: [SeedFields.Member] = []
        try memberValues(into: &found)
        return found
    }

    /// The same, appended to `found`.
    mutating func memberValues(into found: inout [SeedFields.Member]) throws(SeedError) {
        guard scanner.current == UInt8(ascii: "{") else { throw fail("expected an object") }
        try open()
        guard scanner.current != UInt8(ascii: "}") else {
            scanner.position += 1
            return
        }
        while true {
            // In an object checked already (a row of a checked member), names and strings are
            // only found, not checked again.
            let key = isChecked ? scanner.scanCheckedKey() : try syntax { () throws(JSONParseError) in try scanner.scanKey() }
            var value = child(at: scanner.position)
            if scanner.current == UInt8(ascii: "\"") {
                value.checkedString = isChecked ? scanner.scanCheckedString()
                    : try syntax { () throws(JSONParseError) in try scanner.scanString() }
            } else {
                var skipped = value
                value.checkedCount = try skipped.skipChecking()
                scanner.position = skipped.scanner.position
            }
            value.isChecked = true
            found.append((key, value))
            guard try next(closing: UInt8(ascii: "}"), else: "expected ',' or '}'") else { return }
        }
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
    /// Whether the member name `token` (of this text) is `name` (its UTF-8).
    func spells(_ name: UnsafeBufferPointer<UInt8>, _ token: StringToken) -> Bool {
        guard !token.hasEscapes else { return decode(token).utf8.elementsEqual(name) }
        guard token.content.count == name.count else { return false }
        // Byte by byte: member names are a few bytes, less than a call to memcmp costs.
        var place = token.content.lowerBound
        for byte in name {
            guard bytes[place] == byte else { return false }
            place += 1
        }
        return true
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
