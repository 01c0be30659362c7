import Foundation
import MockHTTP

/// `--state FILE`: every acknowledged change, on the disk before its answer goes out.
///
/// The file is a snapshot followed by a log of changes (`StateFileContents`). A change costs one
/// record the size of the change. Requests that change state at the same time share one flush to
/// the disk: the first to wait writes and flushes every record queued so far while the others
/// wait for it (group commit). When the log grows past the snapshot, a background compaction
/// writes a new snapshot with an empty log, as stop does, and start when the file is new or its
/// log is that long; otherwise a start appends to the file as it is.
///
/// A record that cannot be stored is never acknowledged: its request gets its API's server error,
/// and the state goes back to what the file holds, reloaded from it, before anyone can read the
/// change. Until a write succeeds again `/_mock/health` reports the failure. A request that read a
/// change not yet stored waits for it too, and reads again if it was withdrawn.
public final class StateLog: @unchecked Sendable {
    public let path: String
    private let condition = NSCondition()
    private let console: @Sendable (String) -> Void
    /// The served APIs, in `health` order; their stores are locked in this order.
    private var apis: [any MockAPI] = []
    /// Documents of APIs in the file that this run does not serve (`--only`): kept as they are.
    private var carried: [(api: String, document: SeedJSON)] = []

    private var fd: Int32 = -1
    /// The file's length up to the last stored record.
    private var storedLength = 0
    private var snapshotLength = 0
    private var chain: UInt32 = 0

    /// Records numbered from 1 in the order their changes were made.
    private var lastNumber = 0
    private var queued: [(number: Int, api: String, json: [UInt8])] = []
    /// Every record up to this one is stored or failed.
    private var settledThrough = 0
    /// Failed records, as ranges of numbers (merged when adjacent).
    private var failed: [ClosedRange<Int>] = []
    /// Failed records up to this one are gone from memory too.
    private var withdrawnThrough = 0
    private var apisToReload: Set<String> = []
    private var flushing = false
    /// Until `beginWriting` has written the file's first snapshot, records wait.
    private var snapshotPending = false
    private var withdrawing = false
    private var compacting = false
    /// After a failure, until the state is reloaded: new records fail at once.
    private var refusing = false
    /// Bytes past `storedLength` may be on the disk (a failed write): cut them before appending.
    private var tailDirty = false
    /// A failed flush may have lost pages of stored records too: write a whole new file.
    private var mustRewrite = false
    /// Why the last write failed, until one succeeds.
    private var failure: String?
    /// Since start: records stored, and the flushes of the log that stored them (group commit
    /// makes fewer flushes than records when writes come at once).
    private var storedRecords = 0
    private var flushes = 0

    /// For tests of group commit: seconds each flush of the log waits before writing its records,
    /// so that records queued meanwhile share the next flush. Set before `open`.
    public var flushHold: Double = 0

    public init(path: String, console: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.console = console
    }

    /// The state file's health: nil when writes succeed, else why they do not.
    public var failureReason: String? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    /// Records stored since start, and the flushes that stored them.
    public var counts: (records: Int, flushes: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (storedRecords, flushes)
    }

    // MARK: Start and stop

    /// Loads the file into the APIs and attaches the stores, changing nothing on the disk: a file
    /// that cannot be read, or a file or folder that cannot be written, stops the start here, and a
    /// start that fails later leaves the file as it was. Changes wait for `beginWriting`.
    public func open(_ apis: [any MockAPI]) throws(StateFileError) {
        self.apis = apis
        let contents: StateFileContents?
        do {
            contents = try DiskFile.readAll(path).map { bytes throws(SeedError) in try StateFileContents(bytes, file: path) }
        } catch let error as DiskFile.Failure {
            throw .unreadable(error)
        } catch let error as SeedError {
            throw .invalid(error)
        } catch {
            throw .invalid(SeedError(file: path, path: "$", problem: "\(error)"))
        }
        if let contents {
            try load(contents, only: nil)
            if contents.droppedLength > 0 {
                console("state file: dropped \(contents.droppedLength) bytes after the last whole change (a write cut short, never acknowledged)")
            }
        }
        do {
            // The folder takes the new files of compactions; the file itself, records.
            try DiskFile.probe(beside: path)
            if contents != nil { fd = try DiskFile.openForAppending(path) }
        } catch {
            throw .unwritable(error)
        }
        if let contents, contents.isAppendable(serving: apis.map(\.name)) {
            storedLength = contents.validLength
            snapshotLength = contents.snapshotLength
            chain = contents.chain
            tailDirty = contents.droppedLength > 0
        } else {
            snapshotPending = true
        }
        for api in apis { api.attach(to: self) }
    }

    /// Once the server listens: writes the snapshot that a new file (or one to compact) needs
    /// before records can follow it. Changes made meanwhile wait for it, and are in it.
    public func beginWriting() throws(StateFileError) {
        guard snapshotPending else { return }
        var failure: DiskFile.Failure?
        holdingAll {
            do throws(DiskFile.Failure) { try rewrite() } catch { failure = error }
        }
        if let failure { throw .unwritable(failure) }
        condition.lock()
        snapshotPending = false
        condition.broadcast()
        condition.unlock()
    }

    /// A new snapshot at stop, so the file left behind is plain JSON.
    public func close() {
        holdingAll {
            do {
                try rewrite()
            } catch {
                console("state file: the snapshot at stop could not be written (\(error)); the log before it keeps every change")
            }
        }
    }

    private func load(_ contents: StateFileContents, only names: Set<String>?) throws(StateFileError) {
        let served = Set(apis.map(\.name))
        if names == nil { carried = contents.documents.filter { !served.contains($0.api) } }
        let previous = RequestWrites.current.replaying
        RequestWrites.current.replaying = true
        defer { RequestWrites.current.replaying = previous }
        for api in apis where names?.contains(api.name) ?? true {
            guard let document = contents.documents.first(where: { $0.api == api.name })?.document else { continue }
            do {
                try api.loadState(document)
            } catch {
                throw .invalid(SeedError(file: path, path: "$." + api.name + error.path.dropFirst(), problem: error.problem))
            }
        }
    }

    // MARK: Records

    /// Runs `answer` (a request's handler) and returns what it answered once every change it made
    /// is stored, or `refused()` when one cannot be. A request that read a change withdrawn since
    /// is answered again, from the state as it is now.
    public func onceStored(_ answer: () -> Response, refused: () -> Response) -> Response {
        let writes = RequestWrites.current
        for _ in 0..<3 {
            writes.clear()
            let response = answer()
            let (first, last, saw) = (writes.firstWrote, writes.wrote, writes.saw)
            writes.clear()
            if last > 0 {
                if settle(first), settle(last) { return response }
                break
            }
            if saw == 0 || settle(saw) { return response }
        }
        return refused()
    }

    /// Queues a record of `api`'s change; the change is already in memory. Called under the
    /// store's lock, so each API's records are in the order of its changes.
    func append(_ json: [UInt8], of api: String) -> Int {
        condition.lock()
        defer { condition.unlock() }
        lastNumber += 1
        if refusing {
            fail(lastNumber...lastNumber)
            settledThrough = lastNumber
            apisToReload.insert(api)
        } else {
            queued.append((lastNumber, api, json))
        }
        return lastNumber
    }

    /// Waits until record `number` is stored (true) or has failed and been withdrawn (false),
    /// writing and flushing the queue itself when no one else is.
    func settle(_ number: Int) -> Bool {
        condition.lock()
        while true {
            if number <= settledThrough {
                guard hasFailed(number) else {
                    let compact = !compacting && !refusing
                        && StateFileContents.logNeedsCompaction(logLength: storedLength - snapshotLength, snapshotLength: snapshotLength)
                    if compact { compacting = true }
                    condition.unlock()
                    if compact { DispatchQueue.global().async { self.compactInBackground() } }
                    return true
                }
                if number <= withdrawnThrough {
                    condition.unlock()
                    return false
                }
                if !withdrawing {
                    withdrawing = true
                    condition.unlock()
                    withdrawFailedChanges()
                    condition.lock()
                    withdrawing = false
                    condition.broadcast()
                    continue
                }
            } else if !flushing && !snapshotPending {
                flushQueue()
                continue
            }
            condition.wait()
        }
    }

    /// Writes and flushes every queued record. Called and returns with the lock held.
    private func flushQueue() {
        flushing = true
        let batch = queued
        queued = []
        var bytes: [UInt8] = []
        var checksum = chain
        for record in batch {
            let line = StateFileContents.line(record.json, after: checksum)
            bytes += line.bytes
            checksum = line.checksum
        }
        let (fd, offset, cutTail) = (self.fd, storedLength, tailDirty)
        condition.unlock()
        if flushHold > 0 { Thread.sleep(forTimeInterval: flushHold) }
        var outcome: DiskFile.Failure?
        do throws(DiskFile.Failure) {
            if cutTail { try DiskFile.truncate(fd, to: offset, path: path) }
            try DiskFile.write(fd, bytes, at: offset, path: path)
            try DiskFile.sync(fd, path: path)
        } catch {
            outcome = error
        }
        condition.lock()
        flushing = false
        if let error = outcome {
            // Everything not stored fails with it: later records may build on the failed ones.
            tailDirty = true
            if error.call == "fsync" { mustRewrite = true }
            if let first = batch.first?.number ?? queued.first?.number { fail(first...lastNumber) }
            apisToReload.formUnion(batch.map(\.api) + queued.map(\.api))
            queued = []
            settledThrough = lastNumber
            refusing = true
            if failure == nil { console("state file: cannot store changes: \(error); they are refused until it can") }
            failure = error.description
        } else {
            tailDirty = false
            storedLength = offset + bytes.count
            chain = checksum
            if let last = batch.last { settledThrough = last.number }
            storedRecords += batch.count
            flushes += 1
            if failure != nil { console("state file: changes are stored again") }
            failure = nil
        }
        condition.broadcast()
    }

    private func hasFailed(_ number: Int) -> Bool {
        for range in failed.reversed() {
            if range.contains(number) { return true }
            if range.upperBound < number { return false }
        }
        return false
    }

    private func fail(_ numbers: ClosedRange<Int>) {
        if let last = failed.last, last.upperBound + 1 == numbers.lowerBound {
            failed[failed.count - 1] = last.lowerBound...numbers.upperBound
        } else {
            failed.append(numbers)
        }
        // A waiter looks its record up right after it settles; old ranges serve no one.
        if failed.count > 1000 { failed.removeFirst(failed.count - 1000) }
    }

    /// Puts every store back to what the file holds, with every store locked so no request sees
    /// the state in between; then the file is made ready for new records.
    private func withdrawFailedChanges() {
        holdingAll {
            condition.lock()
            let reload = apisToReload
            apisToReload = []
            let through = lastNumber
            let (cutTail, rewriteNeeded, length) = (tailDirty, mustRewrite, storedLength)
            condition.unlock()
            do {
                guard let bytes = try DiskFile.readAll(path) else {
                    throw DiskFile.Failure(call: "open", path: path, code: ENOENT)
                }
                try load(StateFileContents(Array(bytes[0..<min(length, bytes.count)]), file: path), only: reload)
            } catch {
                // The memory holds a change that was refused and cannot be taken back: stopping is
                // the only answer that does not lie.
                console("state file: cannot reload \(path) to withdraw a refused change (\(error)); stopping")
                exit(1)
            }
            var ready = true
            do {
                if rewriteNeeded {
                    try rewrite()
                } else if cutTail {
                    try withFile { fd throws(DiskFile.Failure) in try DiskFile.truncate(fd, to: length, path: path) }
                }
            } catch {
                ready = false
            }
            condition.lock()
            withdrawnThrough = through
            if ready {
                refusing = false
                tailDirty = false
                mustRewrite = false
            }
            condition.unlock()
        }
    }

    // MARK: Snapshots

    private func compactInBackground() {
        holdingAll {
            condition.lock()
            let skip = refusing
            condition.unlock()
            if !skip {
                do { try rewrite() } catch { console("state file: compaction failed (\(error)); the log keeps growing") }
            }
            condition.lock()
            compacting = false
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Writes a new file holding only a snapshot of every API, in place of the old one; queued
    /// records are in it and count as stored. Called with every store held.
    private func rewrite() throws(DiskFile.Failure) {
        let documents = apis.map { ($0.name, $0.exportState()) } + carried.map { ($0.api, Array($0.document.bytes)) }
        let snapshot = StateFileContents.snapshot(documents)
        try withFile { _ throws(DiskFile.Failure) in
            let newFD = try DiskFile.replace(path, with: snapshot)
            // Still the only writer: a flush waiting to start must find the new file, not write
            // the old one's length and chain into it (or its records into the old one).
            condition.lock()
            if fd >= 0 { Foundation.close(fd) }
            fd = newFD
            storedLength = snapshot.count
            snapshotLength = snapshot.count
            chain = 0
            if let last = queued.last { settledThrough = last.number }
            storedRecords += queued.count
            queued = []
            condition.unlock()
        }
    }

    /// Runs `body` on the file as the only writer: no flush runs meanwhile.
    private func withFile<Result>(_ body: (Int32) throws(DiskFile.Failure) -> Result) throws(DiskFile.Failure) -> Result {
        condition.lock()
        while flushing { condition.wait() }
        flushing = true
        let current = fd
        condition.unlock()
        defer {
            condition.lock()
            flushing = false
            condition.broadcast()
            condition.unlock()
        }
        return try body(current)
    }

    /// Runs `body` with every store locked, in a fixed order.
    private func holdingAll(_ body: () -> Void) {
        func hold(_ index: Int) {
            if index == apis.count { return body() }
            apis[index].holdingState { hold(index + 1) }
        }
        hold(0)
    }
}

/// Why `--state FILE` stops the start: one line naming the file, the cause and the fix.
public struct StateFileError: Error, CustomStringConvertible {
    public let description: String

    static func unreadable(_ failure: DiskFile.Failure) -> StateFileError {
        StateFileError(description: "cannot read the state file \(failure.path): \(failure.cause)")
    }

    static func invalid(_ error: SeedError) -> StateFileError {
        StateFileError(description: "bad state file: \(error)")
    }

    static func unwritable(_ failure: DiskFile.Failure) -> StateFileError {
        let folder = (failure.path as NSString).deletingLastPathComponent
        return StateFileError(description: "cannot write the state file \(failure.path): \(failure.cause) (running as uid \(getuid()))."
            + " Give --state a file in a folder this user can write; in Docker, use a named volume"
            + " (-v mock-data:/data) or a host folder writable by uid 10001 (chown 10001 \(folder.isEmpty ? "." : folder))")
    }
}
