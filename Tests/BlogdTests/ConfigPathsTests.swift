import Foundation
import Testing
import BlogTestSupport
@testable import blogd
@testable import BlogCore

/// Relative paths in a config file are read from the file's folder; those
/// of flags and `BLOGD_*` from the working directory.
@Suite("ConfigPaths")
struct ConfigPathsTests {
    @Test func relativePathsInTheFileAreReadFromItsFolder() async throws {
        try await withTemporaryFolder { (folder: URL) async throws in
            let etc = folder.appendingPathComponent("etc")
            try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
            let file = etc.appendingPathComponent("blogd.json")
            try Data(#"""
                {"db": "data/blog.sqlite", "public": "../www", "tls_certificate": "tls/cert.pem", "tls_key": "/keys/key.pem",
                 "http_port": 8080, "https_port": 8443}
                """#.utf8).write(to: file)
            let config = try await ConfigLoader.load(file: file.path, environment: [:])
            #expect(config.database == etc.path + "/data/blog.sqlite")
            #expect(config.publicFolder == folder.path + "/www")
            #expect(config.tlsCertificate == etc.path + "/tls/cert.pem")
            #expect(config.tlsKey == "/keys/key.pem", "an absolute path stays")
        }
    }

    @Test func flagsAndVariablesStayRelativeToTheWorkingDirectory() async throws {
        try await withTemporaryFolder { (folder: URL) async throws in
            let file = folder.appendingPathComponent("blogd.json")
            try Data(#"{"db": "data/blog.sqlite", "public": "www"}"#.utf8).write(to: file)
            let config = try await ConfigLoader.load(file: file.path, environment: ["BLOGD_PUBLIC": "pages"],
                                                     flags: ["db": "other.sqlite"])
            #expect(config.database == "other.sqlite")
            #expect(config.publicFolder == "pages")
        }
    }

    @Test func aDatabaseURLIsNoPath() async throws {
        try await withTemporaryFolder { (folder: URL) async throws in
            let file = folder.appendingPathComponent("blogd.json")
            try Data(#"{"db": "postgres://blogd@127.0.0.1:5432/blog"}"#.utf8).write(to: file)
            let config = try await ConfigLoader.load(file: file.path, environment: [:])
            #expect(config.database == "postgres://blogd@127.0.0.1:5432/blog")
        }
    }

    @Test func defaultsNotInTheFileStayAsTheyAre() async throws {
        try await withTemporaryFolder { (folder: URL) async throws in
            let file = folder.appendingPathComponent("blogd.json")
            try Data(#"{"port": 6000}"#.utf8).write(to: file)
            let config = try await ConfigLoader.load(file: file.path, environment: [:])
            #expect(config.database == "data/blog.sqlite" && config.publicFolder == "public")
        }
    }
}

/// `BLOGD_*` variables that are not settings are named, with the nearest
/// setting; the test suite's and scripts' own are left alone.
@Suite("EnvironmentCheck")
struct EnvironmentCheckTests {
    @Test func namesTyposWithTheNearestSetting() {
        let unknown = EnvironmentCheck.unknown([
            "BLOGD_REGISTRATOIN": "closed", "BLOGD_PORT": "1", "BLOGD_HTTPPORT": "8080", "BLOGD_ZZZZZZZZZZZZZZZZ": "1",
            "HOME": "/root", "BLOGD_REQUIRE_POSTGRES": "1", "BLOGD_SKIP_FEED_TOOLS": "1", "BLOGD_BIN": "x",
            "BLOGD_CLUSTER_DIR": "/tmp", "BLOGD_SCRYPT_LOG_N": "4",
        ])
        #expect(unknown.map(\.name) == ["BLOGD_HTTPPORT", "BLOGD_REGISTRATOIN", "BLOGD_ZZZZZZZZZZZZZZZZ"])
        #expect(unknown.map(\.nearest) == ["BLOGD_HTTP_PORT", "BLOGD_REGISTRATION", nil])
    }

    /// Every `BLOGD_` name the repository's tests and scripts read is
    /// either a setting or on the list.
    @Test func theRepositorysOwnVariablesAreKnown() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var names: Set<String> = []
        for folder in ["Tests", "scripts", ".ci"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                guard ["swift", "sh", ""].contains(url.pathExtension),
                      let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                for match in text.matches(of: /BLOGD_[A-Z0-9_]*[A-Z0-9]/) { names.insert(String(match.output)) }
            }
        }
        #expect(names.count > 20)
        // Made up for the tests above and below.
        let fixtures: Set = ["BLOGD_REGISTRATOIN", "BLOGD_HTTPPORT", "BLOGD_ZZZZZZZZZZZZZZZZ", "BLOGD_PROT"]
        let unknown = EnvironmentCheck.unknown(Dictionary(uniqueKeysWithValues: names.subtracting(fixtures).map { ($0, "") }))
        #expect(unknown.isEmpty, "\(unknown.map(\.name))")
    }
}
