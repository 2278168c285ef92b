import Foundation
import Testing

/// The module map of docs/design.md, checked against the manifest that
/// SwiftPM itself reads (`swift package dump-package`) and against every
/// `import` in Sources/: a layer may use only the layers below it, and a
/// target imports only what it declares.
@Suite struct LayeringTests {
    /// Each local target's layer: a dependency must sit in a lower one.
    static let layers: [String: Int] = [
        "CLinux": 0, "CVips": 0, "BlogWire": 0, "TerminalInput": 0,
        "BlogSockets": 1, "CVipsShim": 1, "BlogModel": 1, "BlogLimits": 1,
        "BlogPages": 2, "BlogAuth": 2, "BlogPhotos": 2, "BlogSQLite": 2, "BlogPostgres": 2,
        "BlogClient": 2, "BlogWeb": 2,
        "BlogFetch": 2,
        "BlogSignatures": 2,
        "BlogCore": 3,
        "BlogInboxFarm": 3,
        "BlogServer": 4, "BlogApp": 4,
        "blogd": 5, "blog": 5, "blogbench": 5, "BlogFuzz": 5,
    ]

    /// What a layer must never reach for, though it sits higher: storage
    /// knows no rendering or passwords; pages know no passwords; the doors
    /// see storage only through the service.
    static let forbidden: [String: Set<String>] = [
        "BlogModel": ["BlogPages", "BlogAuth", "BlogCore", "BlogSQLite", "BlogPostgres", "BlogSockets"],
        "BlogPages": ["BlogAuth", "BlogCore", "BlogSQLite", "BlogPostgres", "BlogSockets"],
        "BlogAuth": ["BlogPages", "BlogCore", "BlogSQLite", "BlogPostgres", "BlogSockets"],
        "BlogSQLite": ["BlogPages", "BlogAuth", "BlogCore"],
        "BlogPostgres": ["BlogPages", "BlogAuth", "BlogCore"],
        "BlogCore": ["BlogSockets", "BlogSQLite", "BlogPostgres", "BlogWeb"],
        "BlogServer": ["BlogSQLite", "BlogPostgres", "BlogPages"],
        "BlogApp": ["BlogSQLite", "BlogPostgres", "BlogSockets"],
    ]

    /// Modules of the toolchain, which no manifest lists.
    static let system: Set<String> = [
        "Foundation", "FoundationEssentials", "Glibc", "Dispatch", "Synchronization", "Testing", "XCTest",
        "_Concurrency",
    ]

    struct Target {
        var name: String
        var type: String
        var path: String
        var dependencies: [String]
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The targets as SwiftPM reads Package.swift.
    static func targets() throws -> [Target] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // SwiftPM leaves lock files and a folder in TMPDIR: inside the
        // scratch folder, they go with it.
        let temporary = scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }
        // Its own scratch path: the running `swift test` holds .build's lock.
        process.arguments = ["swift", "package", "--package-path", root.path, "--scratch-path", scratch.path,
                             "dump-package"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "swift package dump-package failed")
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let list = try #require(json["targets"] as? [[String: Any]])
        return list.map { target in
            let name = target["name"] as? String ?? ""
            let type = target["type"] as? String ?? ""
            let deps = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dep -> String? in
                // {"byName": [name, …]}, {"product": [name, package, …]}, {"target": [name, …]}
                (dep.values.first as? [Any])?.first as? String
            }
            let folder = type == "test" ? "Tests" : "Sources"
            let path = target["path"] as? String ?? "\(folder)/\(name)"
            return Target(name: name, type: type, path: path, dependencies: deps)
        }
    }

    @Test func everyLocalTargetHasALayer() throws {
        for target in try Self.targets() where target.type != "test" && target.name != "BlogTestSupport" {
            #expect(Self.layers[target.name] != nil, "\(target.name) is on no layer of the map")
        }
    }

    @Test func dependenciesPointDown() throws {
        for target in try Self.targets() {
            guard let layer = Self.layers[target.name] else { continue }
            for dependency in target.dependencies {
                guard let below = Self.layers[dependency] else { continue }
                #expect(below < layer, "\(target.name) (layer \(layer)) uses \(dependency) (layer \(below))")
                #expect(!(Self.forbidden[target.name] ?? []).contains(dependency),
                        "\(target.name) must not use \(dependency)")
            }
        }
    }

    @Test func everyImportIsDeclared() throws {
        let manager = FileManager.default
        for target in try Self.targets() {
            let folder = Self.root.appendingPathComponent(target.path)
            guard let files = manager.enumerator(atPath: folder.path) else { continue }
            let declared = Set(target.dependencies)
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for module in Self.imports(in: text) where !Self.system.contains(module) && module != target.name {
                    #expect(declared.contains(module), "\(target.path)/\(file) imports \(module), which \(target.name) does not declare")
                }
            }
        }
    }

    @Test func theModelRendersNothingAndOpensNoSocket() throws {
        let model = try #require(try Self.targets().first { $0.name == "BlogModel" })
        #expect(Set(model.dependencies).isSubset(of: ["BlogWire", "Metrics"]))
    }

    /// The modules a file imports (`import X`, `@testable import X`,
    /// `import struct X.Y`), top-level lines only.
    static func imports(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            var words = line.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") { words.removeFirst() }
            guard words.first == "import", words.count >= 2 else { return nil }
            let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
            let path = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
            return String(path.split(separator: ".").first ?? "")
        }
    }
}
