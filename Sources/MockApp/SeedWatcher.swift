import Foundation
import MockHTTP
import MockKit
import MockSupport

/// `--watch` (docs/admin.md#live-reload---watch): polls the served APIs' seed files and the stubs
/// folder and reloads what changed. Polling, not inotify or FSEvents: it is portable and sees
/// changes through a Docker bind mount, where file events often never arrive.
public final class SeedWatcher: @unchecked Sendable {
    /// Seconds.
    public static let defaultInterval = 1.0

    private let seed: SeedDirectory
    private let apis: [any MockAPI]
    private let stubs: StubSet
    private let interval: Double
    private let console: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "mock-backend.seed-watcher")
    private var timer: DispatchSourceTimer?
    /// Touched on `queue` only.
    private var known: [String: FileSignature] = [:]
    private var pending: [String: FileSignature] = [:]

    public init(seed: SeedDirectory, apis: [any MockAPI], stubs: StubSet, interval: Double = SeedWatcher.defaultInterval,
                console: @escaping @Sendable (String) -> Void = Console.standard.write) {
        self.seed = seed
        self.apis = apis
        self.stubs = stubs
        self.interval = interval
        self.console = console
    }

    public func start() {
        queue.sync {
            known = signatures()
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [unowned self] in poll() }
            self.timer = timer
            timer.resume()
        }
    }

    public func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
        }
    }

    deinit { timer?.cancel() }

    /// Each served API's seed file, and every file of the stubs folder (stubs and their bodies),
    /// keyed by path.
    private func signatures() -> [String: FileSignature] {
        var files = apis.map { seed.url.appendingPathComponent("\($0.name).json").path }
        if let folder = stubs.folder, let walker = FileManager.default.enumerator(atPath: folder.path) {
            while let name = walker.nextObject() as? String { files.append(folder.appendingPathComponent(name).path) }
        }
        var signatures: [String: FileSignature] = [:]
        for path in files { signatures[path] = FileSignature(path: path) ?? FileSignature() }
        return signatures
    }

    private func poll() {
        let now = signatures()
        let changed = Set(now.keys).union(known.keys).filter { now[$0] != known[$0] }
        // Debounce: act on a change only once the file looked the same on two polls in a row.
        let settled = changed.filter { pending[$0] != nil && pending[$0] == now[$0] }
        pending = Dictionary(uniqueKeysWithValues: changed.subtracting(settled).map { ($0, now[$0] ?? FileSignature()) })
        guard !settled.isEmpty else { return }
        for path in settled { known[path] = now[path] }
        for api in apis where settled.contains(seed.url.appendingPathComponent("\(api.name).json").path) {
            reload(api)
        }
        if let folder = stubs.folder, settled.contains(where: { $0.hasPrefix(folder.path + "/") }) {
            reloadStubs(folder)
        }
    }

    private func reload(_ api: any MockAPI) {
        let url = seed.url.appendingPathComponent("\(api.name).json")
        do {
            let reload = try api.reloadSeed()
            console("mock-backend: reloaded \(api.name) from \(url.path): \(reload)")
        } catch {
            // Placed in the file as at start-up (APIEntry.load).
            console("mock-backend: \(FileProblem(locating: error, in: url)) (\(api.name) keeps its running state)")
        }
    }

    private func reloadStubs(_ folder: URL) {
        do throws(FileProblem) {
            try stubs.reloadFolder()
            console("mock-backend: reloaded \(stubs.count) stubs from \(folder.path)")
        } catch {
            console("mock-backend: \(error) (the stubs in force stay)")
        }
    }
}
