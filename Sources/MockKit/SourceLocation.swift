import Foundation
import MockHTTP
import MockSupport

/// `file:line:column` for a problem in a JSON file a person edits (seeds, stubs), so an editor can
/// jump to it. Lines and columns count from 1; a column counts characters, not bytes.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

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
        self.init(file: file, offset: JSONPathLocator(bytes).offset(of: JSONPathLocator.steps(path)), in: bytes)
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

    public init(location: SourceLocation, problem: String) {
        self.location = location
        self.problem = problem
    }

    /// Reads and parses a JSON file; a syntax error is placed where the parser stopped.
    public static func readJSON(_ url: URL) throws(FileProblem) -> (value: JSONValue, bytes: [UInt8]) {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw FileProblem(location: SourceLocation(file: url.path, line: 1, column: 1), problem: "cannot read the file")
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

/// Finds the byte offset of a value by its JSONPath, scanning the text without building values.
/// Works on text that parsed; on anything else it stops where it can go no further.
struct JSONPathLocator {
    enum Step: Equatable {
        case key(String)
        case index(Int)
    }

    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// `$.users[0].email` → key users, index 0, key email.
    static func steps(_ path: String) -> [Step] {
        var steps: [Step] = []
        var rest = Substring(path.hasPrefix("$") ? String(path.dropFirst()) : path)
        while let first = rest.first {
            if first == "." {
                rest = rest.dropFirst()
                let key = rest.prefix { $0 != "." && $0 != "[" }
                steps.append(.key(String(key)))
                rest = rest.dropFirst(key.count)
            } else if first == "[", let close = rest.firstIndex(of: "]") {
                if let index = Int(rest[rest.index(after: rest.startIndex)..<close]) { steps.append(.index(index)) }
                rest = rest[rest.index(after: close)...]
            } else {
                break
            }
        }
        return steps
    }

    func offset(of steps: [Step]) -> Int {
        var scanner = self
        scanner.skipSpace()
        var found = scanner.position
        for step in steps {
            guard let next = scanner.enter(step) else { break }
            found = next
        }
        return found
    }

    /// Moves to the value the step names inside the current value; nil when it is not there.
    private mutating func enter(_ step: Step) -> Int? {
        skipSpace()
        guard position < bytes.count else { return nil }
        switch (step, bytes[position]) {
        case let (.key(wanted), UInt8(ascii: "{")):
            position += 1
            var last: Int?
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { break }
                let keyStart = position
                skipString()
                let key = (try? JSONParser.parse(bytes[keyStart..<position]))?.stringValue
                skipSpace()
                position += 1  // the colon
                skipSpace()
                if key == wanted { last = position }  // the last of repeated keys is the one read
                skipValue()
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ",") else { break }
                position += 1
            }
            if let last { position = last }
            return last
        case let (.index(wanted), UInt8(ascii: "[")):
            position += 1
            for index in 0... {
                skipSpace()
                guard position < bytes.count, bytes[position] != UInt8(ascii: "]") else { return nil }
                if index == wanted { return position }
                skipValue()
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ",") else { return nil }
                position += 1
            }
            return nil
        default:
            return nil
        }
    }

    private mutating func skipSpace() {
        while position < bytes.count, [9, 10, 13, 32].contains(bytes[position]) { position += 1 }
    }

    private mutating func skipString() {
        position += 1
        while position < bytes.count {
            let byte = bytes[position]
            position += byte == UInt8(ascii: "\\") ? 2 : 1
            if byte == UInt8(ascii: "\"") { return }
        }
    }

    /// Past one value: strings whole, brackets balanced, anything else up to the next delimiter.
    private mutating func skipValue() {
        var depth = 0
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                skipString()
                if depth == 0 { return }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return }
                depth -= 1
                if depth == 0 {
                    position += 1
                    return
                }
            case UInt8(ascii: ","):
                if depth == 0 { return }
            default:
                break
            }
            position += 1
        }
    }
}
