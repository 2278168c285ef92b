// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "blogd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "blogd", targets: ["blogd"]),
        .library(name: "BlogCore", targets: ["BlogCore"]),
        .library(name: "BlogServer", targets: ["BlogServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // Protocol codec, validation, storage, pages and the service: no sockets.
        .target(
            name: "BlogCore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        // BSD sockets driven by Dispatch.
        .target(
            name: "BlogServer",
            dependencies: [
                "BlogCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "blogd",
            dependencies: [
                "BlogCore",
                "BlogServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "BlogCoreTests", dependencies: ["BlogCore"]),
        .testTarget(name: "BlogServerTests", dependencies: ["BlogServer", "BlogCore"]),
        .testTarget(name: "BlogdTests", dependencies: ["blogd", "BlogCore"]),
    ]
)
