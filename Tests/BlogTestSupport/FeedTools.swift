import Foundation

/// The outside feed checkers (`Tests/FeedCheck/check_feed.py`: jing and
/// Python's feedparser), found the way the PostgreSQL and HAProxy tests
/// find theirs: when one is missing the tests that need it skip with one
/// line naming it and how to install it, unless `BLOGD_REQUIRE_FEED_TOOLS=1`
/// (CI) makes that a failure.
///
/// The first `python3` on PATH is often not Debian's (pyenv, a venv) and
/// does not see `python3-feedparser`; so every Python below is tried and
/// the first that imports feedparser is the one used.
///
///     switch FeedTools.find() {
///     case .found(let tools): let (status, output) = try tools.check(paths)
///     case .missing(let line): print(line)
///     }
public struct FeedTools: Sendable {
    /// The Python that has feedparser.
    public let python: String

    public enum Lookup: Sendable {
        case found(FeedTools)
        /// One line: what is missing and how to install it.
        case missing(String)
    }

    /// Pythons tried, in order: PATH's first, then the system's.
    static let pythons = ["python3", "/usr/bin/python3", "/usr/local/bin/python3"]

    /// `BLOGD_REQUIRE_FEED_TOOLS=1`: a missing checker fails the tests.
    public static var required: Bool {
        ProcessInfo.processInfo.environment["BLOGD_REQUIRE_FEED_TOOLS"] == "1"
    }

    /// Looks once per process: the answer does not change while tests run.
    public static func find() -> Lookup { cached }

    private static let cached: Lookup = {
        var missing: [String] = []
        if (try? runQuietly(["jing"])).map({ $0 == 127 }) ?? true {
            missing.append("jing (apt-get install -y jing)")
        }
        let python = pythons.first { candidate in
            (try? runQuietly([candidate, "-c", "import feedparser"])) == 0
        }
        if python == nil {
            missing.append("a python3 with feedparser (apt-get install -y python3-feedparser, "
                + "or python3 -m pip install feedparser)")
        }
        if let python, missing.isEmpty { return .found(FeedTools(python: python)) }
        return .missing("skipping feed checks: \(missing.joined(separator: " and ")) not found "
            + "(or set BLOGD_REQUIRE_FEED_TOOLS=1 to fail instead)")
    }()

    /// Runs check_feed.py over `paths`: its exit status (0 all good, 1 a
    /// feed failed) and its output, stdout and stderr together.
    public func check(_ paths: [String]) throws -> (status: Int32, output: String) {
        try Self.run([python, Self.checker.path] + paths)
    }

    /// `Tests/FeedCheck/check_feed.py`.
    public static let checker = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FeedCheck/check_feed.py")

    /// Runs `arguments` through env (PATH decides what a bare name is),
    /// stdout and stderr together.
    public static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // Read before waiting: a full pipe would stall the child.
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    private static func runQuietly(_ arguments: [String]) throws -> Int32 {
        try run(arguments).status
    }
}
