import Foundation
import MockHTTP
import MockSupport

/// What is wrong with a seed or state document, and where: `$.users[0].email: expected a string`.
public struct SeedError: Error, CustomStringConvertible, Equatable {
    public var file: String?
    public var path: String
    public var problem: String
    /// Set when the document is not JSON at all: where the text went wrong.
    public var syntaxError: JSONParseError?

    public init(file: String? = nil, path: String, problem: String) {
        self.file = file
        self.path = path
        self.problem = problem
    }

    /// The document is not JSON.
    public init(syntax: JSONParseError) {
        self.init(path: "$", problem: "not valid JSON: \(syntax)")
        syntaxError = syntax
    }

    public var description: String {
        (file.map { "\($0): " } ?? "") + "\(path): \(problem)"
    }
}

/// Where a value sits in a seed document. The JSONPath text is only made for an error message:
/// spelling it out for every row and field would cost more than reading the document.
final class SeedLocation: Sendable {
    private enum Step {
        case root(String)
        case key(SeedLocation, String)
        case index(SeedLocation, Int)
    }

    private let step: Step

    init(root: String) { step = .root(root) }
    init(_ parent: SeedLocation, key: String) { step = .key(parent, key) }
    init(_ parent: SeedLocation, index: Int) { step = .index(parent, index) }

    /// `$.users[0].email`
    var path: String {
        switch step {
        case let .root(name): return name
        case let .key(parent, key): return "\(parent.path).\(key)"
        case let .index(parent, index): return "\(parent.path)[\(index)]"
        }
    }
}

/// A JSON value already parsed, with the JSONPath it was found at, so every complaint names its
/// place: for small documents such as stubs. Seed and state documents are read from their bytes
/// by `SeedReader` instead.
public struct SeedNode {
    public let value: JSONValue
    let location: SeedLocation

    public var path: String { location.path }

    public init(_ value: JSONValue, path: String = "$") {
        self.init(value, at: SeedLocation(root: path))
    }

    init(_ value: JSONValue, at location: SeedLocation) {
        self.value = value
        self.location = location
    }

    public func fail(_ problem: String) -> SeedError {
        SeedError(path: path, problem: problem)
    }

    public func object() throws(SeedError) -> SeedObject {
        guard case let .object(members) = value else { throw fail("expected an object") }
        return SeedObject(members: members, location: location)
    }

    public func array() throws(SeedError) -> [SeedNode] {
        guard case let .array(items) = value else { throw fail("expected an array") }
        return items.enumerated().map { SeedNode($1, at: SeedLocation(location, index: $0)) }
    }

    public func string() throws(SeedError) -> String {
        guard case let .string(text) = value else { throw fail("expected a string") }
        return text
    }

    public func int() throws(SeedError) -> Int {
        guard let number = value.intValue else { throw fail("expected an integer") }
        return number
    }
}

/// A JSON object of a seed document, read field by field.
public struct SeedObject {
    public let members: JSONObject
    let location: SeedLocation

    public var path: String { location.path }

    public func node(_ key: String) throws(SeedError) -> SeedNode {
        guard let value = members[key] else { throw SeedError(path: "\(path).\(key)", problem: "missing") }
        return SeedNode(value, at: SeedLocation(location, key: key))
    }

    /// nil when the key is absent or null.
    public func optionalNode(_ key: String) -> SeedNode? {
        guard let value = members[key], !value.isNull else { return nil }
        return SeedNode(value, at: SeedLocation(location, key: key))
    }

    public func string(_ key: String) throws(SeedError) -> String { try node(key).string() }
    public func object(_ key: String) throws(SeedError) -> SeedObject { try node(key).object() }
}

/// The folder of seed files: `Seed/threads.json` and so on.
public struct SeedDirectory: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    /// The text of one seed file, or an error naming the file.
    public func document(_ name: String) throws(SeedError) -> SeedJSON {
        let file = url.appendingPathComponent(name)
        guard let bytes = contentsOfFile(file.path) else {
            throw SeedError(file: file.path, path: "$", problem: "cannot read the file")
        }
        return SeedJSON(bytes)
    }

    /// The size of one seed file in bytes; 0 when it cannot be read.
    public func fileSize(_ name: String) -> Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path)
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// `stubs/` inside the seed folder, when there is one.
    public var stubsFolder: URL? {
        let folder = url.appendingPathComponent("stubs")
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) && isDirectory.boolValue ? folder : nil
    }

    /// The shipped seed: `Seed/` beside the executable, `../share/mock-backend/Seed` beside it,
    /// then `Seed/` in the working directory and each of its parents.
    public static func locate(executable: URL, workingDirectory: URL) -> SeedDirectory? {
        let binDirectory = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [
            binDirectory.appendingPathComponent("Seed"),
            binDirectory.deletingLastPathComponent().appendingPathComponent("share/mock-backend/Seed"),
        ]
        candidates += foldersUp(from: workingDirectory).map { $0.appendingPathComponent("Seed") }
        let found = candidates.first { candidate in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
        return found.map(SeedDirectory.init(url:))
    }

    /// `start` and each folder above it, the last one `/`. The walk stops at `/`, or should a parent's
    /// path be no shorter: on macOS 13 and 14 the parent of `/` is `/..`, then `/../..`, never `/`.
    /// `parent` is a parameter so that a test can walk as that Foundation does.
    static func foldersUp(from start: URL, parent: (URL) -> URL = { $0.deletingLastPathComponent() }) -> [URL] {
        var folders: [URL] = []
        var folder = start.standardizedFileURL
        while true {
            folders.append(folder)
            guard folder.path != "/" else { return folders }
            let up = parent(folder)
            guard up.path.count < folder.path.count else { return folders }
            folder = up
        }
    }
}
