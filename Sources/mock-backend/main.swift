import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport

// Flags first: a bad one prints what is wrong in one line (with the flag meant, for a misspelt one)
// and where the usage is, and exits 2; the whole usage would push the line off the screen.
let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()),
                          environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("mock-backend: \(error.message)\nmock-backend --help lists every option.\n".utf8))
    exit(2)
}
if options.logFormat == .json { Console.standard.useJSONLines() }
if options.showHelp {
    print(Options.usage)
    exit(0)
}
if options.showVersion {
    print("mock-backend \(MockBackend.version)")
    exit(0)
}
if let target = options.healthcheck {
    exit(Healthcheck.run(url: target, options: options, environment: ProcessInfo.processInfo.environment))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("mock-backend: \(message)\n".utf8))
    exit(1)
}

/// What `step` makes, or the end of the program with its error after `prefix`.
func orFail<Value>(_ prefix: String, _ step: () throws -> Value) -> Value {
    do {
        return try step()
    } catch {
        fail(prefix + "\(error)")
    }
}

/// The program's own file: argv[0] is only the name typed when it was found on the PATH. Asked only
/// when no --seed is given, and on Linux read from /proc: Foundation's Bundle.main lists the whole
/// folder the program is in first (about 8 ms of start-up beside 10,000 files).
func runningExecutable() -> URL {
    #if os(Linux)
    if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        return URL(fileURLWithPath: path)
    }
    #endif
    return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
}

// The seed: --seed, or the shipped Seed/ found beside the program or above the working directory.
let seed: SeedDirectory
if let path = options.seedDirectory {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
        fail("--seed \(path): no such folder")
    }
    seed = SeedDirectory(url: URL(fileURLWithPath: path))
} else if let found = SeedDirectory.locate(executable: runningExecutable(),
                                           workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) {
    seed = found
} else {
    fail("no Seed/ folder found beside the program or in the working directory and its parents; use --seed DIR")
}

// One memory budget for the connections and for what clients store (docs/reliability.md#memory-budget).
var configuration = ServerConfiguration()
configuration.memoryBudget = options.memoryBudget
let memory = HTTPServer.budget(for: configuration)
var apiOptions = APIOptions()
apiOptions.storedText = StoredText(budget: memory)
apiOptions.otpCode = options.otpCode
apiOptions.otpTTL = options.otpTTL
apiOptions.wsuvTimeZone = options.wsuvTimeZone ?? apiOptions.wsuvTimeZone
apiOptions.console = Console.standard.write
// One clock and one source of random values for every API, the Date header and /_mock/clock.
let clock = ServerClock(standingAt: options.clock)
apiOptions.clock = { clock.now() }
apiOptions.randomness = Randomness(seed: options.randomSeed)

let apis = orFail("bad seed: ") { try APICatalog.load(options.only, seed: seed, options: apiOptions) }

var settings = AppSettings(adminToken: options.adminToken,
                           log: options.quiet ? nil : RequestLog(format: options.logFormat))
settings.trustsLoopback = !options.adminRequiresToken
settings.clock = clock
settings.randomness = apiOptions.randomness
settings.journalCapacity = options.journal
if let only = options.only {
    settings.routesNotServed = APICatalog.routesLeftOut(by: only, seed: seed, options: apiOptions)
}
settings.latency = options.latency
settings.addresses = ServerAddresses(publicURL: options.publicURL,
                                     inContainer: ContainerDetection.isContainer(environment: ProcessInfo.processInfo.environment))
// The state file is read and shown writable before the port opens, and written only once it is
// open: a start that fails leaves the file as it was.
if let path = options.stateFile {
    let stateLog = StateLog(path: URL(fileURLWithPath: path).path, maxFileSize: options.memoryBudget, console: Console.standard.write)
    orFail("") { try stateLog.open(apis) }
    settings.stateLog = stateLog
}
// Stubs: --stubs, or the seed folder's stubs/ when it has one.
let stubsFolder = options.stubsDirectory.map { URL(fileURLWithPath: $0) } ?? seed.stubsFolder
if let path = options.stubsDirectory, !FileManager.default.fileExists(atPath: path) {
    fail("--stubs: no such folder \(path)")
}
let stubs = orFail("bad stub: ") { try StubSet.load(folder: stubsFolder, apis: apis) }
let app = orFail("bad route table: ") { try MockApp(apis: apis, settings: settings, stubs: stubs) }
configuration.host = options.host
configuration.port = options.port
// A body one address may never hold with what parsing it makes (as much again) within its half
// of the budget would get 503 "try again" forever: it is over the largest body instead, the API's
// own 413. 64 KiB is left for the connection's own buffers.
configuration.limits.maxBody = min(options.maxBody, max(64 << 10, options.memoryBudget / 4 - (64 << 10)))
if configuration.limits.maxBody < options.maxBody {
    Console.standard.write("mock-backend: largest request body lowered to \(configuration.limits.maxBody) bytes, about a quarter of "
                           + "--memory-budget (a body and what parsing it makes, within what one client address may hold at once)")
}
configuration.maxConnectionsPerAddress = options.maxConnectionsPerAddress
configuration.poller = options.poller
configuration.now = { clock.now() }
let server = HTTPServer(configuration: configuration, responder: app, memory: memory)
let healthFilePath = HealthFile.path(environment: ProcessInfo.processInfo.environment)
// Before the first answer: whoever waits for it (a script, docker stop) may signal at once, and a
// signal that came between the start and this line was lost. The first signal's handler runs on
// the main queue, so only once `dispatchMain()` runs, after the start.
Shutdown(server: server, app: app, stateLog: settings.stateLog, healthFile: healthFilePath).handleSignals()
do {
    try server.start()
    try settings.stateLog?.beginWriting()
} catch let error as SocketError {
    fail(error.explained(setting: options.spelling))
} catch {
    fail("\(error)")
}
// For `--healthcheck` without flags (Docker's HEALTHCHECK), which cannot see this command line.
// As PID 1 (a container's ENTRYPOINT) it reads /proc/1 instead when there is no file, so a
// read-only container needs no warning.
do {
    try HealthFile(pid: getpid(), host: HealthFile.loopback(listening: options.host), port: server.port,
                   adminToken: options.adminToken).write(to: healthFilePath)
} catch where getpid() != 1 {
    Console.standard.write("warning: cannot leave the health file for --healthcheck (\(error)); --healthcheck "
                           + "without flags will not find this server: set MOCK_HEALTH_FILE to a writable path, or "
                           + "give --healthcheck this server's --port and --admin-token")
} catch {}

Banner.print(server: server, apis: apis, seed: seed, stubs: stubs, options: options, addresses: settings.addresses)
if options.adminToken == nil && !options.adminRequiresToken && [nil, "0.0.0.0", "::"].contains(options.host) {
    Console.standard.write("""
        warning: no --admin-token while listening on every interface. /_mock/… (the journal with other
                 people's passwords and tokens, live OTP codes, reset, faults) is open to loopback callers,
                 and behind a proxy or port forward every caller is loopback. Set --admin-token.
        """)
}
let watcher = options.watch ? SeedWatcher(seed: seed, apis: apis, stubs: stubs) : nil
watcher?.start()

dispatchMain()
