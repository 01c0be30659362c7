import Foundation
import MockHTTP
import MockKit

/// `--state FILE`: every API's state in one JSON document `{"threads":{…},…}`, loaded instead of
/// the seed at start and rewritten (atomically, before the answer goes out) whenever a request
/// changed an API's state.
public final class StateFile: @unchecked Sendable {
    public let url: URL
    private let lock = NSLock()
    private var written: [String: [UInt8]] = [:]
    private var order: [String] = []

    public init(url: URL) {
        self.url = url
    }

    /// Loads the file into the APIs, when it exists; an error names the file and the JSON path.
    public func load(into apis: [any MockAPI]) throws(SeedError) {
        if FileManager.default.fileExists(atPath: url.path) {
            let document = try SeedDirectory(url: url.deletingLastPathComponent()).document(url.lastPathComponent)
            guard case let .object(sections) = document else {
                throw SeedError(file: url.path, path: "$", problem: "expected an object with one member per API")
            }
            for api in apis {
                guard let section = sections[api.name] else { continue }
                do {
                    try api.loadState(section)
                } catch {
                    throw SeedError(file: url.path, path: "$." + api.name + error.path.dropFirst(), problem: error.problem)
                }
            }
        }
        lock.lock()
        order = apis.map(\.name)
        lock.unlock()
        for api in apis { persist(api) }
    }

    /// Writes the file when this API's state differs from what was last written.
    public func persist(_ api: any MockAPI) {
        lock.lock()
        defer { lock.unlock() }
        // Exported under the file's lock: a snapshot taken earlier could be written after a newer
        // one and drop a change that was already acknowledged.
        let state = api.exportState()
        guard written[api.name] != state else { return }
        written[api.name] = state
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        for name in order {
            guard let section = written[name] else { continue }
            writer.key(name)
            writer.raw(section)
        }
        writer.endObject()
        writeDurably(writer.bytes)
    }

    /// A complete new file or none: written beside the old one, flushed to the disk, then renamed
    /// over it, so neither a killed process nor a power cut leaves half a document.
    private func writeDurably(_ bytes: [UInt8]) {
        let temporary = url.appendingPathExtension("partial")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: temporary) else { return }
        do {
            try handle.write(contentsOf: bytes)
            try handle.synchronize()
            try handle.close()
            // POSIX rename replaces the old file in one step (same call on Linux and macOS).
            _ = rename(temporary.path, url.path)
        } catch {
            try? handle.close()
        }
    }
}
