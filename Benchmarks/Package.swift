// swift-tools-version:6.1
// The servers mock-backend is measured against (issue 9). A separate package so the product keeps
// no dependencies: `.ci/run` never builds this; `Benchmarks/run.sh` does.
import PackageDescription

let package = Package(
    name: "mock-backend-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
    ],
    targets: [
        // The seed data and answer shapes both anchors serve, built the way an ordinary app would.
        .target(name: "AnchorData"),
        .executableTarget(name: "hummingbird-anchor", dependencies: [
            "AnchorData", .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        .executableTarget(name: "flyingfox-anchor", dependencies: [
            "AnchorData", .product(name: "FlyingFox", package: "FlyingFox"),
        ]),
    ]
)
