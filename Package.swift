// swift-tools-version:6.0
// The product depends on nothing but the Swift toolchain (Foundation, Dispatch, Glibc).
// Benchmarks against other servers live in Benchmarks/, a separate package.
import PackageDescription

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
        // The five course APIs, the in-memory stores and the /_mock control surface.
        .target(name: "MockRoutes", dependencies: ["MockHTTP"]),
        // The command line: flags, seed lookup, start-up and shutdown.
        .executableTarget(name: "mock-backend", dependencies: ["MockHTTP", "MockRoutes"]),
        // A raw-socket client and an in-process server launcher shared by the test targets.
        .target(name: "TestSupport", dependencies: ["MockHTTP", "MockRoutes"], path: "Tests/TestSupport"),
        .testTarget(name: "MockHTTPTests", dependencies: ["MockHTTP", "TestSupport"]),
        .testTarget(name: "MockRoutesTests", dependencies: ["MockHTTP", "MockRoutes", "TestSupport"]),
        // Runs the built mock-backend program as a user would.
        .testTarget(name: "CommandLineTests", dependencies: ["MockHTTP", "MockRoutes", "TestSupport"]),
    ]
)
