import Foundation
import MockHTTP
import MockSupport

/// `--state FILE` (docs/admin.md#state-that-survives---state-file): every acknowledged change is
/// on the disk before its answer goes out. The file is a snapshot and a log of records
/// (`StateFileContents`) that the log's own thread writes: an answer waits for its records
/// (`whenSettled`) without holding its event loop, changes made meanwhile share one flush, and a
/// log longer than the snapshot is compacted into a new one. A record counts as stored once
/// flushed to the file still at the path (`DiskFile.confirm`); one that cannot be is never
/// acknowledged, its API is reloaded from the file, and nothing is appended until the file is
/// whole again (cut back to its last stored record, or written anew when pages may be lost).
public final class StateLog: @unchecked Sendable {
    public let path: String
    private let condition = NSCondition()
    private let console: @Sendable (String) -> Void
    /// The largest file a start reads (the memory budget).
    private let maxFileSize: Int
    /// The served APIs, in `health` order; their stores are locked in this order.
    private var apis: [any MockAPI] = []
    /// Documents of APIs in the file that this run does not serve (`--only`): kept as they are.
    private var carried: [(api: String, document: SeedJSON)] = []

    private var fd: Int32 = -1
    /// The file `fd` is, to notice another one at the path.
    private var identity: DiskFile.Identity?
    /// The file's length up to the last stored record.
    private var storedLength = 0
    private var snapshotLength = 0
    private var chain: UInt32 = 0

    /// Records numbered from 1 in the order their changes were made.
    private var lastNumber = 0
    private typealias Record = (number: Int, api: String, json: [UInt8])
    private var queued: [Record] = []
    /// Every record up to this one is stored or failed.
    private var settledThrough = 0
    /// Failed records, as ranges of numbers (merged when adjacent).
    private var failed: [ClosedRange<Int>] = []
    private var failedThrough = 0
    /// Failed records up to this one are gone from memory too.
    private var withdrawnThrough = 0
    private var apisToReload: Set<String> = []
    /// Answers waiting for their records (`whenSettled`).
    private var waiters: [(records: ClosedRange<Int>, done: (Bool) -> Void)] = []
    /// Until `beginWriting` has written the file's first snapshot, records wait.
    private var snapshotPending = false
    private var writerStarted = false
    /// A write, or a whole new file, is under way: no other may start.
    private var busy = false
    /// Bytes past `storedLength` may be on the disk (a failed write): cut them before appending.
    private var tailDirty = false
    /// A failed write may have cost records stored before it: write a whole new file.
    private var mustRewrite = false
    /// Why the last write failed, until one succeeds.
    private var failure: String?
    /// When the file, not ready after a failure, is tried again without a write asking.
    private var nextRepair = 0.0
    /// Why the last compaction failed, until one succeeds; and when to try again.
    private var compactionFailure: String?
    private var nextCompaction = 0.0
    /// Since start: records stored, and the flushes of the log that stored them (group commit
    /// makes fewer flushes than records when writes come at once).
    private var storedRecords = 0
    private var flushes = 0

    /// For tests of group commit and of answers that wait off the loop: seconds each flush of
    /// the log waits before writing its records. Set before `open`.
    public var flushHold: Double = 0

    /// `maxFileSize`: a larger file stops the start before any of it is read.
    public init(path: String, maxFileSize: Int = .max, console: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.maxFileSize = maxFileSize
        self.console = console
    }

    /// The state file's health: nil when writes succeed, else why they do not.
    public var failureReason: String? { condition.locked { failure } }

    /// Why the log could not be compacted (it keeps growing, every change in it), until it can.
    public var compactionFailureReason: String? { condition.locked { compactionFailure } }

    public var counts: (records: Int, flushes: Int) { condition.locked { (storedRecords, flushes) } }

    // MARK: Start and stop

    /// Loads the file into the APIs and attaches the stores, changing nothing on the disk: a file
    /// that cannot be read, or a file or folder that cannot be written, stops the start here, and a
    /// start that fails later leaves the file as it was. Changes wait for `beginWriting`.
    public func open(_ apis: [any MockAPI]) throws(StateFileError) {
        self.apis = apis
        let contents: StateFileContents?
        do {
            contents = try DiskFile.readAll(path, limit: maxFileSize).map { bytes throws(SeedError) in try StateFileContents(bytes, file: path) }
        } catch let error as DiskFile.Failure {
            throw .unreadable(error)
        } catch {
            throw .invalid(error as? SeedError ?? SeedError(file: path, path: "$", problem: "\(error)"))
        }
        if let contents {
            try load(contents, only: nil)
            if contents.droppedLength > 0 {
                console("state file: dropped \(contents.droppedLength) bytes after the last whole change (a write cut short, never acknowledged)")
            }
        }
        do {
            if contents != nil {
                // Appended to where it is: no room needed beside it, only its folder's permission
                // for the compactions to come.
                fd = try DiskFile.openForAppending(path)
                identity = try DiskFile.identity(of: fd, path: path)
                try DiskFile.checkFolderWritable(of: path)
            } else {
                try DiskFile.probe(beside: path)
            }
        } catch {
            throw .unwritable(error, stateSize: error.isOutOfRoom ? snapshotSize() : nil)
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

    private func snapshotSize() -> Int {
        StateFileContents.snapshot(documents()).count
    }

    /// Once the server listens: writes the snapshot that a new file (or one an API is missing
    /// from) needs before records can follow it, and starts the log's thread. Changes made
    /// meanwhile wait for it, and are in it.
    public func beginWriting() throws(StateFileError) {
        if snapshotPending, let failure = rewriteHoldingAll() {
            throw .unwritable(failure, stateSize: failure.isOutOfRoom ? snapshotSize() : nil)
        }
        let start = condition.locked {
            snapshotPending = false
            condition.broadcast()
            defer { writerStarted = true }
            return !writerStarted
        }
        if start {
            let writer = Thread { [self] in writeRecords() }
            writer.name = "state log"
            writer.start()
        }
    }

    /// A new snapshot at stop, so the file left behind is plain JSON.
    public func close() {
        guard let error = rewriteHoldingAll() else { return }
        let refusedSince = condition.locked { failure }
        console("state file: the snapshot at stop could not be written (\(error)); "
                + (refusedSince.map { "changes were refused since \($0), and the file holds those acknowledged before" }
                   ?? "the log before it keeps every change"))
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

    /// Runs `answer` (a request's handler) and says which records its answer must wait for: those
    /// it wrote, or the last unstored one it read (nil: none), and whether it wrote them.
    public func answering(_ answer: () -> Response) -> (response: Response, awaits: ClosedRange<Int>?, wrote: Bool) {
        let writes = RequestWrites.current
        writes.clear()
        let response = answer()
        let (first, last, saw) = (writes.firstWrote, writes.wrote, writes.saw)
        writes.clear()
        if last > 0 { return (response, first...last, true) }
        let settled = condition.locked { saw <= settledThrough && !hasFailed(saw...saw) }
        return (response, saw == 0 || settled ? nil : saw...saw, false)
    }

    /// Calls `done` once every record in `records` is stored (true) or one of them failed and was
    /// withdrawn (false): at once when that is already so, else on the log's thread.
    public func whenSettled(_ records: ClosedRange<Int>, _ done: @escaping (Bool) -> Void) {
        condition.lock()
        if let outcome = outcome(of: records) {
            condition.unlock()
            return done(outcome)
        }
        waiters.append((records, done))
        condition.broadcast()
        condition.unlock()
    }

    /// Known with the lock held: true once all are stored, false once one failed and was withdrawn.
    private func outcome(of records: ClosedRange<Int>) -> Bool? {
        guard records.upperBound <= settledThrough else { return nil }
        guard hasFailed(records) else { return true }
        return records.upperBound <= withdrawnThrough ? false : nil
    }

    /// Queues a record of `api`'s change; the change is already in memory. Called under the
    /// store's lock, so each API's records are in the order of its changes.
    func append(_ json: [UInt8], of api: String) -> Int {
        condition.locked {
            lastNumber += 1
            if failedThrough > withdrawnThrough {
                // A change made before the failed ones are withdrawn may build on them: it fails too.
                fail(lastNumber...lastNumber)
                settledThrough = lastNumber
                apisToReload.insert(api)
            } else {
                queued.append((lastNumber, api, json))
            }
            condition.broadcast()
            return lastNumber
        }
    }

    /// The log's thread: withdraws failed changes, makes the file whole after a failure, writes
    /// queued records, compacts; then tells the answers that waited.
    private func writeRecords() {
        condition.lock()
        while true {
            var ready: [(done: (Bool) -> Void, outcome: Bool)] = []
            waiters.removeAll { waiter in
                guard let outcome = outcome(of: waiter.records) else { return false }
                ready.append((waiter.done, outcome))
                return true
            }
            if !ready.isEmpty {
                unlocked { for waiter in ready { waiter.done(waiter.outcome) } }
                continue
            }
            let now = Self.now()
            // A torn tail found at start is cut by the first flush; after a failure the file is
            // made whole before anything else is written.
            let fileReady = !mustRewrite && failure == nil
            if failedThrough > withdrawnThrough {
                unlocked { withdrawFailedChanges() }
            } else if !fileReady && (!queued.isEmpty || now >= nextRepair) {
                unlocked { repairFile() }
                if failure != nil {
                    nextRepair = Self.now() + 1
                    failUnstored(queued)
                }
            } else if !queued.isEmpty {
                flushQueue()
            } else if fileReady && compactionDue(now: now) {
                unlocked { compact() }
            } else if fileReady {
                condition.wait()
            } else {
                _ = condition.wait(until: Date(timeIntervalSinceNow: max(0.01, nextRepair - now)))
            }
        }
    }

    /// Writes and flushes every queued record. Called and returns with the lock held.
    private func flushQueue() {
        busy = true
        let batch = queued
        queued = []
        var bytes: [UInt8] = []
        var checksum = chain
        for record in batch {
            let line = StateFileContents.line(record.json, after: checksum)
            bytes += line.bytes
            checksum = line.checksum
        }
        let (fd, offset, identity, cutTail) = (self.fd, storedLength, self.identity, tailDirty)
        var outcome: DiskFile.Failure?
        unlocked {
            if flushHold > 0 { Thread.sleep(forTimeInterval: flushHold) }
            do throws(DiskFile.Failure) {
                if cutTail { try DiskFile.truncate(fd, to: offset, path: path) }
                try DiskFile.write(fd, bytes, at: offset, path: path)
                try DiskFile.sync(fd, path: path)
                if let identity { try DiskFile.confirm(fd, is: identity, at: path) }
            } catch {
                outcome = error
            }
        }
        busy = false
        if let error = outcome {
            failUnstored(batch + queued)
            tailDirty = true
            if error.needsNewFile { mustRewrite = true }
            if failure == nil { console("state file: cannot store changes: \(error); they are refused until it can") }
            failure = error.description
            nextRepair = Self.now() + 1
        } else {
            tailDirty = false
            storedLength = offset + bytes.count
            chain = checksum
            if let last = batch.last { settledThrough = max(settledThrough, last.number) }
            storedRecords += batch.count
            flushes += 1
        }
        condition.broadcast()
    }

    /// Every record from the first of `unstored` on fails (later ones may build on it) and is
    /// withdrawn by reloading its API. Called with the lock held.
    private func failUnstored(_ unstored: [Record]) {
        guard let first = unstored.first?.number else { return }
        fail(first...lastNumber)
        apisToReload.formUnion(unstored.map(\.api))
        queued = []
        settledThrough = lastNumber
    }

    /// After a failure: the file cut back to its last stored record, or a whole new one. Called
    /// without the lock.
    private func repairFile() {
        var outcome: DiskFile.Failure?
        if condition.locked({ mustRewrite }) {
            outcome = rewriteHoldingAll()
        } else {
            do throws(DiskFile.Failure) {
                try exclusively { fd throws(DiskFile.Failure) in
                    let (length, identity) = condition.locked { (storedLength, self.identity) }
                    try DiskFile.truncate(fd, to: length, path: path)
                    try DiskFile.sync(fd, path: path)
                    if let identity { try DiskFile.confirm(fd, is: identity, at: path) }
                }
            } catch {
                outcome = error
            }
        }
        condition.locked {
            if let outcome {
                if outcome.needsNewFile { mustRewrite = true }
                failure = outcome.description
            } else {
                tailDirty = false
                mustRewrite = false
                if failure != nil { console("state file: changes are stored again") }
                failure = nil
            }
        }
    }

    private func hasFailed(_ numbers: ClosedRange<Int>) -> Bool {
        for range in failed.reversed() {
            if range.overlaps(numbers) { return true }
            if range.upperBound < numbers.lowerBound { return false }
        }
        return false
    }

    private func fail(_ numbers: ClosedRange<Int>) {
        failedThrough = max(failedThrough, numbers.upperBound)
        if let last = failed.last, last.upperBound + 1 == numbers.lowerBound {
            failed[failed.count - 1] = last.lowerBound...numbers.upperBound
        } else {
            failed.append(numbers)
        }
        // A waiter looks its record up right after it settles; old ranges serve no one.
        if failed.count > 1000 { failed.removeFirst(failed.count - 1000) }
    }

    /// Puts every store whose changes failed back to what the file holds, read through the open
    /// file (which a deleted folder or a replaced file leaves readable), with every store locked
    /// so no request sees the state in between.
    private func withdrawFailedChanges() {
        holdingAll {
            let (reload, through, fd, length) = condition.locked {
                defer { apisToReload = [] }
                return (apisToReload, lastNumber, self.fd, storedLength)
            }
            do {
                let bytes = try DiskFile.read(fd, from: 0, count: length, path: path)
                guard bytes.count == length else { throw DiskFile.Failure(call: "read", path: path, code: EIO) }
                try load(StateFileContents(bytes, file: path), only: reload)
            } catch {
                // The memory holds a change that was refused and cannot be taken back: stopping is
                // the only answer that does not lie.
                console("state file: cannot reload \(path) to withdraw a refused change (\(error)); stopping")
                exit(1)
            }
            condition.locked { withdrawnThrough = through }
        }
    }

    // MARK: Snapshots

    /// With the lock held: no recent attempt failed, and the log is longer than its snapshot (or
    /// than 64 KiB), so replaying it at start would cost more than reading the snapshot twice.
    private func compactionDue(now: Double) -> Bool {
        now >= nextCompaction && !snapshotPending && storedLength - snapshotLength > max(snapshotLength, 64 << 10)
    }

    /// A new snapshot in place of the long log; without room for it the log stays as it is (every
    /// change is in it), health says so, and it is tried again in 10 seconds.
    private func compact() {
        let outcome = rewriteHoldingAll()
        condition.locked {
            if let outcome {
                if compactionFailure == nil {
                    console("state file: cannot compact the log (\(outcome)); it keeps every change and grows until there is room")
                }
                compactionFailure = outcome.description
                nextCompaction = Self.now() + 10
            } else {
                if compactionFailure != nil { console("state file: the log is compacted again") }
                compactionFailure = nil
            }
        }
    }

    private func documents() -> [(api: String, document: [UInt8])] {
        apis.map { ($0.name, $0.exportState()) } + carried.map { ($0.api, Array($0.document.bytes)) }
    }

    /// Writes a new file holding only a snapshot of every API, in place of the old one, with every
    /// store held; queued records are in it and count as stored. Nil when it succeeded.
    private func rewriteHoldingAll() -> DiskFile.Failure? {
        var failure: DiskFile.Failure?
        holdingAll {
            let snapshot = StateFileContents.snapshot(documents())
            do throws(DiskFile.Failure) {
                try exclusively { _ throws(DiskFile.Failure) in
                    let newFD = try DiskFile.replace(path, with: snapshot)
                    let newIdentity: DiskFile.Identity
                    do throws(DiskFile.Failure) {
                        newIdentity = try DiskFile.identity(of: newFD, path: path)
                    } catch {
                        Foundation.close(newFD)
                        throw error
                    }
                    // Still the only writer: a flush waiting to start must find the new file, not write
                    // the old one's length and chain into it (or its records into the old one).
                    condition.locked {
                        if fd >= 0 { Foundation.close(fd) }
                        fd = newFD
                        identity = newIdentity
                        storedLength = snapshot.count
                        snapshotLength = snapshot.count
                        chain = 0
                        tailDirty = false
                        mustRewrite = false
                        if let last = queued.last { settledThrough = max(settledThrough, last.number) }
                        storedRecords += queued.count
                        queued = []
                        condition.broadcast()
                    }
                }
            } catch {
                failure = error
            }
        }
        return failure
    }

    /// Runs `body` on the file as the only writer: no flush runs meanwhile.
    private func exclusively<Result>(_ body: (Int32) throws(DiskFile.Failure) -> Result) throws(DiskFile.Failure) -> Result {
        let current = condition.locked {
            while busy { condition.wait() }
            busy = true
            return fd
        }
        defer {
            condition.locked {
                busy = false
                condition.broadcast()
            }
        }
        return try body(current)
    }

    /// Runs `body` with the lock, which the caller holds, let go meanwhile.
    private func unlocked(_ body: () -> Void) {
        condition.unlock()
        defer { condition.lock() }
        body()
    }

    /// Seconds on a clock that only goes forward.
    private static func now() -> Double {
        ProcessInfo.processInfo.systemUptime
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
        StateFileError(description: "cannot read the state file \(failure.path): \(failure.cause); \(advice(for: failure))")
    }

    static func invalid(_ error: SeedError) -> StateFileError {
        StateFileError(description: "bad state file: \(error)")
    }

    static func unwritable(_ failure: DiskFile.Failure, stateSize: Int? = nil) -> StateFileError {
        StateFileError(description: "cannot write the state file \(failure.path): \(failure.cause); \(advice(for: failure, stateSize: stateSize))")
    }

    /// What is wrong with the place, and the fix that fits the cause.
    private static func advice(for failure: DiskFile.Failure, stateSize: Int? = nil) -> String {
        let file = failure.path
        var folder = (file as NSString).deletingLastPathComponent
        if folder.isEmpty { folder = "." }
        switch failure.code {
        case ENOSPC:
            var info = statvfs()  // f_bavail: the blocks this user may still write
            let free = statvfs(folder, &info) == 0 ? "\(Int(info.f_bavail) * Int(info.f_frsize)) bytes free" : "no room"
            return "the disk holding \(folder) is full (\(free))\(stateSize.map { "; the state needs \($0) bytes" } ?? "")."
                + " Free space there, or give --state a file on another disk"
        case EDQUOT:
            return "the disk quota of uid \(getuid()) on \(folder) is used up\(stateSize.map { "; the state needs \($0) bytes" } ?? "")."
                + " Free some of that user's files or raise the quota, or give --state a file elsewhere"
        case EROFS:
            return "\(folder) is on a read-only file system. Give --state a file on a writable one; in Docker with"
                + " --read-only, mount a volume there (-v mock-data:/data -e MOCK_STATE=/data/state.json)"
        case ENOENT:
            return "the folder \(folder) does not exist. Create it (mkdir -p \(folder)) or give --state a file in an existing folder"
        case ENOTDIR:
            return "a part of \(folder) is a file, not a folder. Give --state a path whose folders exist"
        case EISDIR:
            return "\(file) is a folder. Give --state a file, e.g. --state \((file as NSString).appendingPathComponent("state.json"))"
        case EFBIG where failure.finding != nil:
            return "Raise --memory-budget if it really is a state file, or move it away"
        case EINVAL where failure.finding != nil:
            return "Give --state a regular file (mock-backend writes it itself)"
        case EACCES, EPERM:
            return "running as uid \(getuid()), which may not write there. Give --state a file in a folder this user can"
                + " write; in Docker, use a named volume (-v mock-data:/data) or a host folder writable by uid 10001"
                + " (chown 10001 \(folder))"
        default:
            return "Give --state a file on a disk that works"
        }
    }
}
