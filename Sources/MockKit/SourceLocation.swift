import Foundation
import MockHTTP
import MockSupport

/// `file:line:column` for a problem in a JSON file a person edits (seeds, stubs), so an editor can
/// jump to it. Lines and columns count from 1; a column counts characters, not bytes.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    /// The location of a byte offset in the file's text.
    public init(file: String, offset: Int, in bytes: [UInt8]) {
        self.file = file
        line = 1
        column = 1
        for byte in bytes.prefix(offset) {
            if byte == 10 {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
    }

    public var description: String { "\(file):\(line):\(column)" }

    /// Where the value at a JSONPath of `SeedError` (`$.users[0].email`) starts; for a member that
    /// is missing, where the deepest part of the path that exists starts.
    public init(file: String, path: String, in bytes: [UInt8]) {
        self.init(file: file, offset: JSONPathLocator.offset(of: path, in: bytes), in: bytes)
    }
}

/// A problem in a JSON file a person edits, with its place:
/// `Seed/stubs/courses.json:3:14: $.request.path: expected a string`.
public struct FileProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    /// The JSONPath of the value at fault; nil for a file that cannot be read or parsed.
    public var path: String?
    public var problem: String

    public var description: String {
        "\(location): " + (path.map { "\($0): " } ?? "") + problem
    }
}

extension FileProblem {
    /// A `SeedError` found in a file: a syntax error where the text went wrong, any other where
    /// its JSONPath points.
    public init(_ error: SeedError, in bytes: [UInt8], file: String) {
        if let syntax = error.syntaxError {
            location = SourceLocation(file: file, offset: syntax.offset, in: bytes)
            problem = "not valid JSON: \(syntax.message)"
        } else {
            location = SourceLocation(file: file, path: error.path, in: bytes)
            path = error.path
            problem = error.problem
        }
    }

    /// A `SeedError` about a file parsed earlier, placed in it (or in the file the error names, one
    /// that could not be read): the file is read again, so only a failed load pays for counting
    /// lines. A syntax error is placed where the parser stopped.
    public init(locating error: SeedError, in file: URL) {
        let file = error.file.map(URL.init(fileURLWithPath:)) ?? file
        do throws(FileProblem) {
            self.init(error, in: try Self.readJSON(file).bytes, file: file.path)
        } catch {
            self = error
        }
    }

    /// Reads and parses a JSON file; a syntax error is placed where the parser stopped.
    public static func readJSON(_ url: URL) throws(FileProblem) -> (value: JSONValue, bytes: [UInt8]) {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw FileProblem(location: SourceLocation(file: url.path, offset: 0, in: []), problem: "cannot read the file")
        }
        let bytes = Array(data)
        do {
            return (try JSONParser.parse(bytes), bytes)
        } catch {
            throw FileProblem(location: SourceLocation(file: url.path, offset: error.offset, in: bytes),
                              problem: "not valid JSON: \(error.message)")
        }
    }
}

/// Finds the byte offset of a value by its JSONPath, the way back from `SeedReader.path(of:)`.
/// On text that does not parse it stops at the deepest value whose container it could read.
enum JSONPathLocator {
    /// Where the deepest value on `path` (`$.users[0].email`) that `bytes` has starts.
    static func offset(of path: String, in bytes: [UInt8]) -> Int {
        var offset = 0
        _ = try? SeedJSON(bytes, maxDepth: .max).read { root throws(SeedError) in
            var value = root
            offset = value.scanner.position
            var rest = path.hasPrefix("$") ? path.dropFirst() : path[...]
            while let first = rest.first {
                var next: SeedReader?
                if first == "." {
                    let key = rest.dropFirst().prefix { $0 != "." && $0 != "[" }
                    rest = rest[key.endIndex...]
                    guard value.scanner.current == UInt8(ascii: "{") else { return }
                    // The last of repeated keys is the one read.
                    next = try value.memberValues().last { value.scanner.decode($0.name) == key }?.value
                } else if first == "[", let close = rest.firstIndex(of: "]") {
                    let index = Int(rest[rest.index(after: rest.startIndex)..<close])
                    rest = rest[rest.index(after: close)...]
                    guard let index else { continue }
                    guard value.scanner.current == UInt8(ascii: "[") else { return }
                    var count = 0
                    try value.elements { element throws(SeedError) in
                        if count == index { next = element }
                        count += 1
                    }
                } else {
                    return
                }
                guard let next else { return }
                value = next
                offset = value.offset
            }
        }
        return offset
    }
}
