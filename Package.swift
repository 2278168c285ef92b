// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "blogd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "blogd", targets: ["blogd"]),
        .library(name: "BlogWire", targets: ["BlogWire"]),
        .library(name: "BlogSockets", targets: ["BlogSockets"]),
        .library(name: "BlogModel", targets: ["BlogModel"]),
        .library(name: "BlogPages", targets: ["BlogPages"]),
        .library(name: "BlogAuth", targets: ["BlogAuth"]),
        .library(name: "BlogCore", targets: ["BlogCore"]),
        .library(name: "BlogServer", targets: ["BlogServer"]),
        .library(name: "BlogClient", targets: ["BlogClient"]),
        .library(name: "BlogWeb", targets: ["BlogWeb"]),
        .library(name: "BlogApp", targets: ["BlogApp"]),
        .library(name: "BlogPostgres", targets: ["BlogPostgres"]),
        .library(name: "BlogPhotos", targets: ["BlogPhotos"]),
        .library(name: "BlogFetch", targets: ["BlogFetch"]),
        .library(name: "BlogSignatures", targets: ["BlogSignatures"]),
        .executable(name: "blog", targets: ["blog"]),
        .executable(name: "blogbench", targets: ["blogbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // The wire codec: framing, requests, replies, field rules. No dependencies.
        .target(name: "BlogWire"),
        // BSD sockets, addresses, epoll and eventfd through Glibc: the one
        // socket layer of the server, the client, blogbench and the tests.
        .target(name: "BlogSockets", dependencies: ["CLinux"]),
        // epoll, eventfd and accept4, which Swift's Glibc module leaves out.
        .target(name: "CLinux"),
        // The layers of the core, each importing only those above it in
        // this list (docs/design.md has the map; LayeringTests checks it).
        // The model: records, the storage protocol and its errors, the
        // page-group arithmetic, the login rule. No sockets, no rendering.
        .target(
            name: "BlogModel",
            dependencies: ["BlogWire", .product(name: "Metrics", package: "swift-metrics")]
        ),
        // Pages and feeds: rendering, and the public folder's writer.
        .target(
            name: "BlogPages",
            dependencies: ["BlogModel", "BlogWire", "CLinux", .product(name: "Metrics", package: "swift-metrics")]
        ),
        // The limits every door shares: the address key (IPv4, IPv6 /64),
        // token buckets, the connection table, held refusals, the
        // low-priority worker threads.
        .target(
            name: "BlogLimits",
            dependencies: ["BlogWire", "CLinux", .product(name: "Metrics", package: "swift-metrics")]
        ),
        // Passwords, login leases, the login throttle, access tokens.
        .target(
            name: "BlogAuth",
            dependencies: [
                "BlogModel",
                "BlogLimits",
                "BlogWire",
                "CLinux",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // HTTP signatures for ActivityPub (draft-cavage-12): RSA keys in
        // PEM, Digest, signing and verifying. No sockets, no storage.
        .target(
            name: "BlogSignatures",
            dependencies: [
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // A farm of stub ActivityPub inboxes on loopback addresses (SwiftNIO),
        // shared by blogbench's fan-out benchmark and the delivery tests.
        .target(
            name: "BlogInboxFarm",
            dependencies: [
                "BlogSignatures",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The service: what every door's requests do, on the layers above.
        .target(
            name: "BlogCore",
            dependencies: [
                "BlogSignatures",
                "BlogLimits",
                "BlogModel",
                "BlogPages",
                "BlogAuth",
                "BlogWire",
                "BlogFetch",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The storage in SQLite (GRDB): one file, group commit, WAL.
        .target(
            name: "BlogSQLite",
            dependencies: [
                "BlogModel",
                "BlogWire",
                "CLinux",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The same storage in PostgreSQL (PostgresNIO), so that several
        // blogd instances can share one database and one public folder.
        .target(
            name: "BlogPostgres",
            dependencies: [
                "BlogModel",
                "BlogLimits",
                "BlogWire",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // libvips from the system, and the non-variadic wrappers Swift
        // needs to call it (vips's operations take `...` options).
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .target(name: "CVipsShim", dependencies: ["CVips"]),
        // Uploaded photos to published JPEGs: limits checked before
        // decoding, upright, resized, every metadata block stripped.
        .target(name: "BlogPhotos", dependencies: ["CVips", "CVipsShim", "BlogWire"]),
        // Outgoing HTTP (Webmention, photos by URL): bounded in bytes, time
        // and concurrency, and never to a private address unless allowed.
        .target(
            name: "BlogFetch",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The blog port: blogd's own epoll loops, the connection state
        // machine, the connection limit; requests go to Dispatch.
        .target(
            name: "BlogServer",
            dependencies: [
                "BlogCore",
                "BlogLimits",
                "BlogModel",
                "BlogAuth",
                "BlogWire",
                "BlogSockets",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The public folder over HTTP, read-only: SwiftNIO's HTTP/1 codec on
        // event loops of its own (one per core), apart from the blog port.
        .target(
            name: "BlogWeb",
            dependencies: [
                "BlogLimits",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The web client and Micropub: forms, sessions and tokens on the
        // page server, every change through the blog port's budgets.
        .target(
            name: "BlogApp",
            dependencies: [
                "BlogCore",
                "BlogLimits",
                "BlogModel",
                "BlogPages",
                "BlogAuth",
                "CLinux",
                "BlogPhotos",
                "BlogWeb",
                "BlogWire",
                "BlogFetch",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "blogd",
            dependencies: [
                "BlogSignatures",
                "BlogApp",
                "BlogFetch",
                "BlogAuth",
                "BlogCore",
                "BlogLimits",
                "BlogModel",
                "BlogPages",
                "BlogWire",
                "BlogSQLite",
                "BlogPostgres",
                "BlogServer",
                "BlogWeb",
                "BlogSockets",
                "CLinux",
                "TerminalInput",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // A line typed with the terminal's echo off (passwords), for blog and blogd.
        .target(name: "TerminalInput"),
        // The Swift counterpart of the original app's networking class.
        .target(name: "BlogClient", dependencies: ["BlogWire", "BlogSockets"]),
        .executableTarget(
            name: "blog",
            dependencies: [
                "BlogClient",
                "TerminalInput",
                "BlogWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "blogbench",
            dependencies: [
                "BlogWire",
                "BlogSockets",
                "BlogInboxFarm", "BlogModel", "BlogSQLite", "BlogSignatures",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // libFuzzer targets for every parser of untrusted input (picked by
        // BLOGFUZZ_TARGET): scripts/fuzz.sh builds it with
        // -sanitize=fuzzer,address; a plain build replays inputs instead.
        .executableTarget(name: "BlogFuzz", dependencies: [
            "BlogWire", "BlogCore", "BlogModel", "BlogPages", "BlogApp", "BlogPhotos",
            "BlogSignatures",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
        .target(
            name: "BlogTestSupport",
            dependencies: ["BlogCore", "BlogModel", "BlogPages", "BlogAuth", "BlogSQLite", "BlogWire", "BlogServer", "BlogSockets", "CLinux", .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"), "BlogWeb"],
            path: "Tests/BlogTestSupport"
        ),
        .testTarget(name: "BlogWireTests", dependencies: ["BlogWire"]),
        .testTarget(name: "BlogLimitsTests", dependencies: ["BlogLimits"]),
        .testTarget(name: "BlogSignaturesTests", dependencies: [
            "BlogSignatures", "BlogTestSupport",
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
        // The module map, checked against the manifest and every import.
        .testTarget(name: "PackageLayoutTests"),
        .testTarget(name: "BlogSocketsTests", dependencies: ["BlogSockets"]),
        .testTarget(name: "BlogAppTests", dependencies: [
            "BlogApp", "BlogCore", "BlogModel", "BlogPages", "BlogAuth", "BlogLimits", "BlogWeb", "BlogWire", "BlogServer", "BlogSockets", "BlogTestSupport", "BlogPhotos",
            "BlogFetch",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .testTarget(name: "BlogFetchTests", dependencies: [
            "BlogFetch", "BlogTestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        .testTarget(name: "BlogPhotosTests", dependencies: ["BlogPhotos", "BlogWire", "BlogTestSupport", "CLinux"]),
        .testTarget(name: "BlogClientTests", dependencies: ["BlogClient", "BlogServer", "BlogCore", "BlogModel", "BlogPages", "BlogAuth", "BlogWire", "BlogSockets", "blog", "BlogTestSupport"]),
        .testTarget(
            name: "BlogWebTests",
            dependencies: [
                "BlogWeb", "BlogSockets", "BlogTestSupport",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "BlogCoreTests", dependencies: [
            "BlogCore", "BlogModel", "BlogPages", "BlogAuth", "BlogSQLite", "BlogWire", "BlogTestSupport",
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
        ]),
        // One suite over every backend: what BlogStorage promises.
        .testTarget(name: "BlogStorageTests", dependencies: [
            "BlogCore", "BlogModel", "BlogPages", "BlogAuth", "BlogSQLite", "BlogPostgres", "BlogWire", "BlogTestSupport",
            "BlogFetch",
            "BlogInboxFarm", "BlogSignatures",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "BlogServerTests", dependencies: [
            "BlogFetch",
            "BlogSignatures",
            "BlogServer", "BlogCore", "BlogModel", "BlogPages", "BlogAuth", "BlogLimits", "BlogWire", "BlogSockets",
            "BlogTestSupport", "CLinux",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "BlogdTests", dependencies: ["blogd", "BlogCore", "BlogModel", "BlogPages", "BlogAuth", "BlogSQLite", "BlogWire", "BlogSockets", "BlogTestSupport",
                                                 "BlogApp", "BlogSignatures", "BlogWeb",
                                                 "BlogInboxFarm",
                                                 .product(name: "HTTPTypes", package: "swift-http-types")]),
        .testTarget(
            name: "BlogPostgresTests",
            dependencies: [
                "BlogFetch",
                "BlogPostgres", "BlogCore", "BlogModel", "BlogPages", "BlogAuth", "BlogSQLite", "BlogWire", "BlogTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
