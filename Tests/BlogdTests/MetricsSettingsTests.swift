import Foundation
import Testing
import BlogTestSupport
import BlogModel
@testable import blogd
@testable import BlogCore

/// The metrics keys (`metrics_port`, `metrics_host`) read as the other
/// keys are, and the labels storage failures are counted under.
@Suite("Metrics settings and labels")
struct MetricsSettingsTests {
    private func load(_ json: String = "{}", environment: [String: String] = [:],
                      flags: [String: String] = [:]) async throws -> BlogConfig {
        try await withTemporaryFolder { (folder: URL) async throws in
            let file = folder.appendingPathComponent("blogd.json")
            try Data(json.utf8).write(to: file)
            return try await ConfigLoader.load(file: file.path, environment: environment, flags: flags)
        }
    }

    @Test func offAndOnLoopbackByDefault() async throws {
        let config = try await load()
        #expect(config.metricsPort == nil)
        #expect(config.metricsHost == "127.0.0.1")
    }

    @Test func fileThenEnvironmentThenFlags() async throws {
        let file = #"{"metrics_port": 9151, "metrics_host": "::1"}"#
        #expect(try await load(file).metricsPort == 9151)
        #expect(try await load(file).metricsHost == "::1")
        let environment = ["BLOGD_METRICS_PORT": "9152", "BLOGD_METRICS_HOST": "*"]
        #expect(try await load(file, environment: environment).metricsPort == 9152)
        #expect(try await load(file, environment: environment).metricsHost == "*")
        let flags = ["metrics_port": "0", "metrics_host": "10.0.0.5"]
        #expect(try await load(file, environment: environment, flags: flags).metricsPort == 0)
        #expect(try await load(file, environment: environment, flags: flags).metricsHost == "10.0.0.5")
    }

    @Test func aBadPortIsOneClearError() async throws {
        await #expect(throws: ConfigLoadError.invalidValue(key: "metrics_port", reason: "70000 is outside 0...65535")) {
            try await load(#"{"metrics_port": 70000}"#)
        }
        await #expect(throws: ConfigLoadError.invalidValue(key: "metrics_port", reason: "'nine' is not a whole number")) {
            try await load(environment: ["BLOGD_METRICS_PORT": "nine"])
        }
    }

    @Test func everyFailureHasAKindAndAnswersHaveNone() {
        let failures: [StorageError] = [
            .missing(path: "x"), .cannotOpen(path: "x", reason: "y"), .sqlite(code: 13, message: "full"),
            .postgres(sqlState: "57P01", message: "shutdown"), .unreachable("refused"), .closed, .failed("?"),
            .outcomeUnknown,
        ]
        let kinds = failures.compactMap(\.metricKind)
        #expect(kinds.count == failures.count)
        #expect(Set(kinds) == Set(StorageError.metricKinds), "each kind listed once, and only those")
        #expect(kinds.count == StorageError.metricKinds.count)
        // Answers a caller can cause are no failures; deadlines are counted apart.
        #expect(StorageError.nameTaken.metricKind == nil)
        #expect(StorageError.unknownUser.metricKind == nil)
        #expect(StorageError.deadlineExceeded(seconds: 3).metricKind == nil)
        // A label never carries the message (which may name a user or a path).
        #expect(!kinds.contains { $0.contains(" ") || $0.contains("/") })
    }
}
