// swift-tools-version:6.0
// The product depends on nothing but the Swift toolchain (Foundation, Dispatch, Glibc).
// Benchmarks against other servers live in Benchmarks/, a separate package.
import PackageDescription

/// The five course APIs: each is its own target, built on the kit alone, with its own tests.
let courseAPIs = ["Threads", "InternProducts", "WSUVTwitter", "CSE118", "OTP"]

let package = Package(
    name: "mock-backend",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "mock-backend", targets: ["mock-backend"]),
    ],
    targets: [
        // Transport: sockets, event loops, HTTP parsing and writing, routing, bodies, JSON.
        .target(name: "MockHTTP", dependencies: ["CPlatform"]),
        // epoll and accept4, which Swift's Glibc module does not export.
        .target(name: "CPlatform"),
        // What every course API is built with: the API protocol, seeded stores, seed reading, OpenAPI.
        .target(name: "MockKit", dependencies: ["MockHTTP"]),
    ] + courseAPIs.map { name in
        .target(name: name, dependencies: ["MockHTTP", "MockKit"])
    } + [
        // The app: the catalog of APIs, the /_mock control surface, faults, journal and --state.
        .target(name: "MockApp", dependencies: ["MockHTTP", "MockKit"] + courseAPIs.map { .target(name: $0) }),
        // The command line: flags, seed lookup, start-up and shutdown.
        .executableTarget(name: "mock-backend", dependencies: ["MockHTTP", "MockKit", "MockApp"]),
        // A raw-socket client and an in-process server launcher shared by the test targets.
        .target(name: "TestSupport", dependencies: ["MockHTTP", "MockKit", "MockApp"], path: "Tests/TestSupport"),
        .testTarget(name: "MockHTTPTests", dependencies: ["MockHTTP", "TestSupport"]),
        .testTarget(name: "MockKitTests", dependencies: ["MockHTTP", "MockKit"]),
        .testTarget(name: "MockAppTests", dependencies: ["MockHTTP", "MockKit", "MockApp", "TestSupport"]),
    ] + courseAPIs.map { name in
        .testTarget(name: "\(name)Tests", dependencies: ["MockHTTP", "MockKit", .target(name: name), "MockApp", "TestSupport"])
    } + [
        // A sixth API built with the kit alone, served like the real five (docs/adding-an-api.md).
        .testTarget(name: "ExampleAPITests", dependencies: ["MockHTTP", "MockKit", "MockApp", "TestSupport"]),
        // Runs the built mock-backend program as a user would.
        .testTarget(name: "CommandLineTests", dependencies: ["MockHTTP", "MockKit", "MockApp", "TestSupport"]),
    ]
)
