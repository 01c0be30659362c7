// swift-tools-version:6.0
// The product depends on nothing but the Swift toolchain (Foundation, Dispatch, Glibc).
// Benchmarks against other servers live in Benchmarks/, a separate package.
//
// Built up one statement at a time: Swift 6.0 to 6.2 give up type-checking one large `Package(...)`
// expression of `+`-joined arrays and `map`s (scripts/check-old-toolchains.sh builds with them).
import PackageDescription

/// The five course APIs: each is its own target under Sources/MockRoutes, built on the kit alone,
/// with its tests under Tests/MockRoutesTests.
let courseAPIs: [String] = ["Threads", "InternProducts", "WSUVTwitter", "CSE118", "OTP"]

var targets: [Target] = []

// General helpers with no HTTP in them: JSON reading and writing, civil time, console lines,
// file signatures and mapped files, UTF-8 validation, byte search.
targets.append(.target(name: "MockSupport"))
// Transport: sockets, event loops, HTTP parsing and writing, routing, bodies.
targets.append(.target(name: "MockHTTP", dependencies: ["MockSupport", "CPlatform"]))
// epoll and accept4, which Swift's Glibc module does not export.
targets.append(.target(name: "CPlatform"))
// What every course API is built with: the API protocol, seeded stores, seed reading, OpenAPI.
targets.append(.target(name: "MockKit", dependencies: ["MockSupport", "MockHTTP"]))

var appDependencies: [Target.Dependency] = ["MockSupport", "MockHTTP", "MockKit"]
for name in courseAPIs {
    let api: Target = .target(name: name, dependencies: ["MockSupport", "MockHTTP", "MockKit"], path: "Sources/MockRoutes/\(name)")
    targets.append(api)
    appDependencies.append(.target(name: name))
}

// The app: the catalog of APIs, the /_mock control surface, faults, journal and --state.
targets.append(.target(name: "MockApp", dependencies: appDependencies))
// The command line: flags, seed lookup, start-up and shutdown.
targets.append(.executableTarget(name: "mock-backend", dependencies: ["MockSupport", "MockHTTP", "MockKit", "MockApp"]))

// A raw-socket client and a server launcher shared by the test targets.
targets.append(.target(name: "TestSupport", dependencies: ["MockSupport", "MockHTTP", "MockKit", "MockApp"], path: "Tests/TestSupport"))
targets.append(.testTarget(name: "MockSupportTests", dependencies: ["MockSupport"]))
targets.append(.testTarget(name: "MockHTTPTests", dependencies: ["MockSupport", "MockHTTP", "TestSupport"]))
targets.append(.testTarget(name: "MockKitTests", dependencies: ["MockSupport", "MockHTTP", "MockKit"]))
targets.append(.testTarget(name: "MockAppTests", dependencies: ["MockSupport", "MockHTTP", "MockKit", "MockApp", "TestSupport"]))
for name in courseAPIs {
    let dependencies: [Target.Dependency] = ["MockSupport", "MockHTTP", "MockKit", .target(name: name), "MockApp", "TestSupport"]
    let tests: Target = .testTarget(name: "\(name)Tests", dependencies: dependencies, path: "Tests/MockRoutesTests/\(name)Tests")
    targets.append(tests)
}
// A sixth API built with the kit alone, served like the real five (docs/adding-an-api.md).
targets.append(.testTarget(name: "ExampleAPITests", dependencies: ["MockSupport", "MockHTTP", "MockKit", "MockApp", "TestSupport"]))
// Runs the built mock-backend program as a user would.
targets.append(.testTarget(name: "CommandLineTests", dependencies: ["MockSupport", "MockHTTP", "MockKit", "MockApp", "TestSupport"]))

let package = Package(
    name: "mock-backend",
    platforms: [.macOS(.v13)],
    products: [.executable(name: "mock-backend", targets: ["mock-backend"])],
    targets: targets
)
