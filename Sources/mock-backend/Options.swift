import Foundation
import MockHTTP
import MockApp
import MockKit

/// Every setting of README.md#command-line; each flag has an environment variable, and a flag
/// beats its variable.
struct Options {
    var host: String?
    var port = 8080
    var seedDirectory: String?
    var only: [String]?
    var stateFile: String?
    var stubsDirectory: String?
    var latency: ClosedRange<Double>?
    var otpCode: String?
    var otpTTL = 600
    var wsuvTimeZone: TimeZone?
    var maxBody = 16 * 1024 * 1024
    var maxConnectionsPerAddress: Int?
    var memoryBudget = 256 << 20
    var adminToken: String?
    var publicURL: PublicURL?
    var journal = 1000
    var quiet = false
    var adminRequiresToken = false
    var watch = false
    var logFormat = RequestLog.Format.text
    var poller = PollerKind.available[0]
    var healthcheck: String??
    /// `--clock`: the instant the clock stands at from the start; nil runs the wall clock.
    var clock: Date?
    var randomSeed: UInt64?
    /// The valued flags given on the command line (not through their variables).
    var givenFlags: Set<String> = []
    /// Flags whose value came from the environment, with the variable that gave it.
    private var variables: [String: String] = [:]
    var showVersion = false
    var showHelp = false

    struct UsageError: Error {
        var message: String
    }

    private static let valued: [(flag: String, variable: String)] = [
        ("--host", "MOCK_HOST"), ("--port", "PORT"), ("--seed", "MOCK_SEED_DIR"), ("--only", "MOCK_ONLY"), ("--stubs", "MOCK_STUBS"),
        ("--state", "MOCK_STATE"), ("--latency", "MOCK_LATENCY"), ("--otp-code", "MOCK_OTP_CODE"),
        ("--otp-ttl", "MOCK_OTP_TTL"), ("--wsuv-tz", "MOCK_WSUV_TZ"), ("--max-body", "MOCK_MAX_BODY"),
        ("--admin-token", "MOCK_ADMIN_TOKEN"), ("--journal", "MOCK_JOURNAL"), ("--log-format", "MOCK_LOG_FORMAT"),
        ("--poller", "MOCK_POLLER"), ("--max-connections-per-address", "MOCK_MAX_CONNECTIONS_PER_ADDRESS"),
        ("--memory-budget", "MOCK_MEMORY_BUDGET"), ("--public-url", "MOCK_PUBLIC_URL"),
        ("--clock", "MOCK_CLOCK"), ("--random-seed", "MOCK_RANDOM_SEED"),
    ]

    init(arguments: [String], environment: [String: String]) throws(UsageError) {
        var values: [String: String] = [:]
        // Values from the environment are named by their variable in complaints (`PORT`, not `--port`).
        var variables: [String: String] = [:]
        for (flag, variable) in Self.valued {
            // An empty variable counts as unset, but for the admin token: `MOCK_ADMIN_TOKEN=` (a
            // compose file's `${TOKEN}` left unset) meant a token, and `--admin-token ""` is refused too.
            if let value = environment[variable], !value.isEmpty || flag == "--admin-token" {
                values[flag] = value
                variables[flag] = variable
            }
        }
        func isOn(_ variable: String) -> Bool {
            environment[variable].map { !["", "0", "false", "no"].contains($0.lowercased()) } ?? false
        }
        quiet = isOn("MOCK_QUIET")
        adminRequiresToken = isOn("MOCK_ADMIN_REQUIRE_TOKEN")
        watch = isOn("MOCK_WATCH")
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var flag = argument, inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            switch flag {
            case "--help", "-h": showHelp = true
            case "--version": showVersion = true
            case "--quiet", "-q": quiet = true
            case "--admin-require-token": adminRequiresToken = true
            case "--watch": watch = true
            case "--healthcheck":
                // The URL is optional: a next argument that is a flag is not it.
                let takesNext = inline == nil && index < arguments.count && !arguments[index].hasPrefix("-")
                healthcheck = .some(inline ?? (takesNext ? arguments[index] : nil))
                if takesNext { index += 1 }
            case _ where Self.valued.contains { $0.flag == flag }:
                variables[flag] = nil
                givenFlags.insert(flag)
                guard inline != nil || index < arguments.count else { throw UsageError(message: "\(flag) needs a value") }
                values[flag] = inline ?? arguments[index]
                if inline == nil { index += 1 }
            default:
                throw UsageError(message: "unknown argument \(argument)"
                                 + (Self.closestFlag(to: flag).map { "; did you mean \($0)?" } ?? ""))
            }
        }
        try apply(values, variables: variables)
        self.variables = variables
    }

    private static let flags = valued.map(\.flag)
        + ["--help", "--version", "--quiet", "--admin-require-token", "--watch", "--healthcheck"]

    /// The flag a mistyped argument most likely meant: `--port` for `--prot`, `-port` or `port`.
    /// Only a close one (at most two letters' edits, fewer than a third of its letters), so that a
    /// stray word gets no guess.
    static func closestFlag(to argument: String) -> String? {
        let typed = String(argument.drop { $0 == "-" }).lowercased()
        guard !typed.isEmpty else { return nil }
        let scored = flags.map { (flag: $0, edits: editDistance(Array(typed.utf8), Array($0.dropFirst(2).utf8))) }
        guard let best = scored.min(by: { $0.edits < $1.edits }),
              best.edits <= min(2, (best.flag.count - 2 - 1) / 3) || best.edits == 0 else { return nil }
        return best.flag
    }

    /// Levenshtein distance, a transposition of two neighbours counting as one edit (`prot`).
    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for row in 0...a.count { table[row][0] = row }
        for column in 0...b.count { table[0][column] = column }
        for row in stride(from: 1, through: a.count, by: 1) {
            for column in stride(from: 1, through: b.count, by: 1) {
                let substitution = table[row - 1][column - 1] + (a[row - 1] == b[column - 1] ? 0 : 1)
                var best = min(substitution, table[row - 1][column] + 1, table[row][column - 1] + 1)
                if row > 1, column > 1, a[row - 1] == b[column - 2], a[row - 2] == b[column - 1] {
                    best = min(best, table[row - 2][column - 2] + 1)
                }
                table[row][column] = best
            }
        }
        return table[a.count][b.count]
    }

    /// A setting as the person who started the server gave it: `--port 8080`, or `PORT=8080`
    /// when the environment set it (a Docker `-e`, a `.env` file), so advice names what to change.
    func spelling(_ flag: String, _ value: String?) -> String {
        guard let variable = variables[flag] else { return value.map { "\(flag) \($0)" } ?? flag }
        return value.map { "\(variable)=\($0)" } ?? variable
    }

    private mutating func apply(_ values: [String: String], variables: [String: String]) throws(UsageError) {
        /// As the person who started the server spelt it: the flag, or the variable that gave the value.
        func named(_ flag: String) -> String { variables[flag] ?? flag }
        /// The flag's value as `parse` reads it; nil when not given. `problem` says why a value is refused.
        func parsed<Value>(_ flag: String, _ parse: (String) -> Value?,
                           else problem: (String) -> String) throws(UsageError) -> Value? {
            guard let text = values[flag] else { return nil }
            guard let value = parse(text) else { throw UsageError(message: problem(text)) }
            return value
        }
        func integer(_ flag: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int? {
            try parsed(flag, { Int($0).flatMap { range.contains($0) ? $0 : nil } }) {
                "\(named(flag)) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \($0)"
            }
        }
        host = values["--host"]
        port = try integer("--port", 0...65_535) ?? port
        seedDirectory = values["--seed"]
        stateFile = values["--state"]
        stubsDirectory = values["--stubs"]
        otpTTL = try integer("--otp-ttl", 1...31_536_000) ?? otpTTL
        maxBody = try integer("--max-body", 1...(1 << 40)) ?? maxBody
        maxConnectionsPerAddress = try integer("--max-connections-per-address", 1...1_000_000)
        memoryBudget = try integer("--memory-budget", (1 << 20)...(1 << 40)) ?? memoryBudget
        journal = try integer("--journal", 0...1_000_000) ?? journal
        adminToken = try parsed("--admin-token", { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }) { _ in
            "\(named("--admin-token")) must not be empty: an empty token would let anyone in (unset it to serve /_mock "
                + "to loopback callers only)"
        }
        if let text = values["--public-url"] {
            do {
                publicURL = try PublicURL(parsing: text)
            } catch {
                throw UsageError(message: "\(named("--public-url")) \(text): \(error.reason) (e.g. http://192.168.1.20:8080)")
            }
        }
        if let only = values["--only"] {
            let names = only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            for name in names where !APICatalog.names.contains(name) {
                throw UsageError(message: "--only: unknown API \(name) (known: \(APICatalog.names.joined(separator: ", ")))")
            }
            guard !names.isEmpty else { throw UsageError(message: "--only needs at least one API") }
            self.only = names
        }
        latency = try parsed("--latency", { text in
            let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
            guard (1...2).contains(parts.count), let low = parts.first ?? nil, let high = parts.last ?? nil,
                  low >= 0, high >= low, high <= 600_000 else { return nil }
            return low...high
        }) { "--latency takes milliseconds, MS or MIN-MAX (e.g. 200 or 100-400), not \($0)" }
        otpCode = try parsed("--otp-code", { $0.count == 6 && $0.allSatisfy { $0.isASCII && $0.isNumber } ? $0 : nil }) {
            "--otp-code must be six digits, not \($0)"
        }
        wsuvTimeZone = try parsed("--wsuv-tz", TimeZone.init(identifier:)) {
            "--wsuv-tz: unknown time zone \($0) (use a name like America/Los_Angeles)"
        }
        clock = try parsed("--clock", { ServerClock.instant($0).flatMap { ServerClock.range.contains($0) ? $0 : nil } }) {
            "\(named("--clock")) must be an instant from 1970 to 9999 such as 2024-09-01T10:00:00Z, not \($0)"
        }
        randomSeed = try parsed("--random-seed", { UInt64($0) }) {
            "\(named("--random-seed")) must be a whole number from 0 to \(UInt64.max), not \($0)"
        }
        logFormat = try parsed("--log-format", RequestLog.Format.init(rawValue:)) {
            "--log-format must be text or json, not \($0)"
        } ?? logFormat
        poller = try parsed("--poller", { PollerKind(rawValue: $0).flatMap { PollerKind.available.contains($0) ? $0 : nil } }) {
            "--poller must be \(PollerKind.available.map(\.rawValue).joined(separator: " or ")) on this system, not \($0)"
        } ?? poller
    }

    private static let apiLines = APICatalog.entries.map { entry in
        "  " + entry.name.padding(toLength: 16, withPad: " ", startingAt: 0)
            + entry.title.padding(toLength: 34, withPad: " ", startingAt: 0) + entry.paths
    }.joined(separator: "\n")

    static let usage = """
    Usage: mock-backend [options]

    Serves these course backends on one port (default 8080), from the seed in Seed/:
    \(apiLines)
    Control surface: GET /, /_mock/health, POST /_mock/reset (loopback only by default).

    Options (environment variable in brackets; a flag beats its variable):
      --host HOST           listen on this address only, or every address of a name like
                            localhost [MOCK_HOST] (default: all, IPv4 and IPv6)
      --port N              port to listen on [PORT] (default 8080; 0 picks a free one)
      --seed DIR            seed folder [MOCK_SEED_DIR] (default: the shipped Seed/)
      --stubs DIR           stub files, matched before the APIs [MOCK_STUBS] (default: the seed's stubs/ if any)
      --only API,API        serve only these APIs [MOCK_ONLY]
      --state FILE          keep state in FILE across restarts [MOCK_STATE]
      --latency MS|MIN-MAX  delay every course API answer [MOCK_LATENCY]
      --otp-code 123456     a fixed one-time code [MOCK_OTP_CODE]
      --otp-ttl SECONDS     one-time code lifetime, at least 1 [MOCK_OTP_TTL] (default 600)
      --wsuv-tz ZONE        WSUV Twitter time zone [MOCK_WSUV_TZ] (default America/Los_Angeles)
      --clock INSTANT       the clock stands still at this instant, e.g. 2024-09-01T10:00:00Z, until
                            POST /_mock/clock moves it [MOCK_CLOCK] (default: the wall clock)
      --random-seed N       tokens, codes and ids from a generator seeded with N, the same every
                            run and after each reset [MOCK_RANDOM_SEED] (default: random)
      --max-body BYTES      largest request body [MOCK_MAX_BODY] (default 16777216; at most half
                            of --memory-budget)
      --max-connections-per-address N
                            connections one client address may hold [MOCK_MAX_CONNECTIONS_PER_ADDRESS]
                            (default 1000, at most half of all connections)
      --memory-budget BYTES request bodies, buffered input and queued output of all connections
                            together [MOCK_MEMORY_BUDGET] (default 268435456)
      --admin-token T       require this token on /_mock/… [MOCK_ADMIN_TOKEN]
      --public-url URL      the address to show for other devices, e.g. the Docker host's
                            http://192.168.1.20:9000 [MOCK_PUBLIC_URL] (default: this machine's; in a
                            container, none: MOCK_IN_CONTAINER=0 or 1 overrides the detection)
      --admin-require-token trust no loopback caller without the token, e.g. behind a proxy
                            [MOCK_ADMIN_REQUIRE_TOKEN=1]
      --journal N           requests kept for /_mock/requests, 0 = off [MOCK_JOURNAL] (default 1000)
      --quiet               no line per request [MOCK_QUIET=1]
      --watch               reload a seed or stub file when it changes (polled every second) [MOCK_WATCH=1]
      --log-format F        text or json [MOCK_LOG_FORMAT] (default text)
      --poller P            epoll (Linux's default) or poll (macOS's only one) [MOCK_POLLER]
      --healthcheck [URL]   ask a running server's /_mock/health; exit 0 if healthy, 1 if not
                            (default: the last server this user started, at its own port and
                            with its token, from its health file [MOCK_HEALTH_FILE])
      --version             print the version
      --help                print this help
    """
}
