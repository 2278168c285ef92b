import Foundation
import Synchronization

/// bovine-herd (PyPI), an independent ActivityPub server, on loopback:
/// `Tests/Fediverse/herd.py` run by the interpreter `BLOGD_HERD_PYTHON`
/// names (else `BLOGD_PYTHON`, else `/usr/bin/python3`). See
/// docs/testing-fediverse.md for its venv and what it needs of blogd.
///
///     guard case .found(let python) = Herd.find() else { ... }
///     let herd = try Herd(python: python, folder: folder)
///     defer { herd.stop() }
///     _ = try herd.follow("acct:alice@127.0.0.1:\(port)")
///     #expect(waitUntil(timeout: 120) { (try? herd.following())?.contains(alice) == true })
public final class Herd: Sendable {
    public enum Lookup: Sendable {
        case found(python: String)
        /// One line: what is missing (print it and skip, unless
        /// `BLOGD_REQUIRE_PY_TOOLS=1`, then fail).
        case missing(String)
    }

    /// The herd's first local actor (its id) and base URL (`http://127.0.0.1:P`).
    public let actorID: String
    /// Every local actor by name (as `init` was given them).
    public let actors: [String: Actor]
    public let url: String
    /// Its database folder, also where its client secret is kept.
    public let folder: URL
    public let python: String
    private let process: Process
    private let stdoutText: TextBuffer
    private let stderrText: TextBuffer

    /// `Tests/Fediverse/herd.py`.
    public static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fediverse/herd.py")

    /// `Tests/Fediverse/standin.py`.
    public static let standIn = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fediverse/standin.py")

    /// `BLOGD_REQUIRE_PY_TOOLS=1`: a missing bovine-herd fails the tests.
    public static var required: Bool {
        ProcessInfo.processInfo.environment["BLOGD_REQUIRE_PY_TOOLS"] == "1"
    }

    /// Looks once per process for a Python with bovine-herd. It asks
    /// `find_spec` rather than importing: importing bovine makes a cache
    /// file in the current folder.
    public static func find() -> Lookup { cached }

    private static let cached: Lookup = {
        let env = ProcessInfo.processInfo.environment
        let python = [env["BLOGD_HERD_PYTHON"], env["BLOGD_PYTHON"]]
            .compactMap { $0.flatMap { $0.isEmpty ? nil : $0 } }.first ?? "/usr/bin/python3"
        let probe = "import sys, importlib.util as u\n"
            + "sys.exit(not all(u.find_spec(m) for m in ('bovine_herd', 'hypercorn')))"
        if (try? tool(python, ["-c", probe]).status) == 0 { return .found(python: python) }
        return .missing("skipped: bovine-herd is missing for \(python) (see docs/testing-fediverse.md; "
            + "set BLOGD_HERD_PYTHON to its venv)")
    }()

    /// Starts `herd.py serve` with its database in `folder` and its local
    /// `actors` (the first is `actorID`), and waits for its `ready` line
    /// (the socket listens by then).
    public init(python: String, folder: URL, actors: [String] = ["herd"], timeout: Double = 120) throws {
        self.python = python
        self.folder = folder
        // Also its working folder: Process fails on a missing one.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, Self.script.path, "serve", "--db", folder.path] + actors.flatMap { ["--actor", $0] }
        process.currentDirectoryURL = folder
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        stdoutText = TextBuffer(draining: out)
        stderrText = TextBuffer(draining: err)
        try process.run()
        stdoutText.start()
        stderrText.start()

        let deadline = Date().addingTimeInterval(timeout)
        var ready: [Substring]?
        while Date() < deadline, process.isRunning {
            ready = stdoutText.text.split(separator: "\n").first { $0.hasPrefix("ready ") }?
                .split(separator: " ")
            if ready != nil { break }
            usleep(20_000)
        }
        guard let ready, ready.count == 3 else {
            if process.isRunning { process.terminate() }
            throw HerdError.notReady(stderrText.text)
        }
        actorID = String(ready[1])
        url = String(ready[2])
        var found: [String: Actor] = [:]
        for line in stdoutText.text.split(separator: "\n") where line.hasPrefix("actor ") {
            let parts = line.split(separator: " ").map(String.init)
            if parts.count == 4 { found[parts[1]] = Actor(id: parts[2], inbox: parts[3]) }
        }
        self.actors = found
    }

    /// Makes the herd's actor (`actor`, one of those it was started with)
    /// follow `target` (an actor URL, or `acct:NAME@HOST` looked up by
    /// WebFinger over http); the herd delivers the signed Follow. Returns
    /// the Follow's id.
    @discardableResult
    public func follow(_ target: String, as actor: String = "herd") throws -> String {
        try command("follow", actor, ["--target", target]).first ?? ""
    }

    /// Makes `actor` reply to `object` (a Create of a Note, `inReplyTo` it,
    /// addressed to its author), delivered signed. Returns the Create's id.
    @discardableResult
    public func reply(to object: String, content: String, as actor: String = "herd") throws -> String {
        try command("reply", actor, ["--target", object, "--content", content]).first ?? ""
    }

    /// Makes `actor` like `object` (addressed to its author). Returns the
    /// Like's id.
    @discardableResult
    public func like(_ object: String, as actor: String = "herd") throws -> String {
        try command("like", actor, ["--target", object]).first ?? ""
    }

    /// Makes `actor` undo its activity `id` (a Follow): bovine names the
    /// object by its id only. Returns the Undo's id.
    @discardableResult
    public func undo(_ id: String, as actor: String = "herd") throws -> String {
        try command("undo", actor, ["--id", id]).first ?? ""
    }

    /// The actor's inbox as the herd stored it: one JSON document an item.
    public func inbox(of actor: String = "herd") throws -> [String] { try command("inbox", actor, []) }

    /// The actor ids `actor` follows (JSON strings, quoted).
    public func following(of actor: String = "herd") throws -> [String] { try command("following", actor, []) }

    /// The herd's copy of `id` (JSON): edited after an Update, a Tombstone
    /// after a Delete.
    public func object(_ id: String) throws -> String {
        try command("object", "herd", ["--id", id]).first ?? ""
    }

    /// The signed requests the herd answered so far, in order, as it saw
    /// them on the wire.
    public var requests: [Request] {
        stdoutText.text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("request ") else { return nil }
            return try? JSONDecoder().decode(Request.self, from: Data(line.dropFirst("request ".count).utf8))
        }
    }

    /// The herd's own deliveries that failed so far (bovine never retries
    /// them): the status (0: no HTTP answer) and the inbox.
    public var failedDeliveries: [(status: Int, inbox: String)] {
        stdoutText.text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "delivery-failed", let status = Int(parts[1]) else { return nil }
            return (status, String(parts[2]))
        }
    }

    /// One of the herd's local actors.
    public struct Actor: Sendable, Equatable {
        public let id: String
        public let inbox: String
    }

    /// A signed request the herd answered (`herd.py`'s `request` line).
    public struct Request: Sendable, Decodable {
        public let method: String
        public let path: String
        public let status: Int
        public let accept: String?
        public let digest: String?
        public let contentType: String?
        public let keyID: String?
        public let algorithm: String?
        /// The Signature's `headers` parameter, as sent.
        public let signed: String?

        enum CodingKeys: String, CodingKey {
            case method, path, status, accept, digest, algorithm, signed
            case contentType = "content_type", keyID = "key_id"
        }
    }

    /// Everything the server wrote to stderr so far (its log).
    public var stderr: String { stderrText.text }

    /// Stops the server and waits for it.
    public func stop() { stopChild(process) }

    private func command(_ name: String, _ actor: String, _ arguments: [String]) throws -> [String] {
        let (status, output) = try tool(python, [Self.script.path, name, "--herd", url, "--db", folder.path,
                                                 "--actor", actor] + arguments)
        guard status == 0 else { throw HerdError.commandFailed(name, status) }
        return output.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }
}

/// `Tests/Fediverse/standin.py`, the Python stand-in blog that proves the
/// harness (blogd itself takes its place in the end-to-end test): alice at
/// `BASE ap/alice`, answering a Follow with an Accept, a Create and an
/// Update of post 1, a Create and a Delete of post 2.
public final class FediverseStandIn: Sendable {
    /// `http://127.0.0.1:P/`.
    public let base: String
    private let process: Process
    private let stdoutText: TextBuffer
    private let stderrText: TextBuffer

    public init(python: String, folder: URL, variant: String = "mastodon", timeout: Double = 120) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, Herd.standIn.path, "--variant", variant]
        process.currentDirectoryURL = folder
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        stdoutText = TextBuffer(draining: out)
        stderrText = TextBuffer(draining: err)
        try process.run()
        stdoutText.start()
        stderrText.start()
        let deadline = Date().addingTimeInterval(timeout)
        var base: String?
        while Date() < deadline, process.isRunning, base == nil {
            base = stdoutText.text.split(separator: "\n").first { $0.hasPrefix("ready ") }
                .map { String($0.dropFirst("ready ".count)) }
            if base == nil { usleep(20_000) }
        }
        guard let base else {
            if process.isRunning { process.terminate() }
            throw HerdError.notReady(stderrText.text)
        }
        self.base = base
    }

    /// Its event lines so far (`verified …`, `follow …`, `accept 202 …`,
    /// `create 202 …`, `failed …`).
    public var events: [String] { stdoutText.text.split(separator: "\n").map(String.init) }

    public var stderr: String { stderrText.text }

    public func stop() { stopChild(process) }
}

/// SIGTERM, then SIGKILL after a minute: a child that inherited a blocked
/// SIGTERM must not hang the test run.
func stopChild(_ process: Process) {
    guard process.isRunning else { return }
    process.terminate()
    if !waitUntil(timeout: 60, { !process.isRunning }) {
        kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
}

/// What a child wrote to one pipe, read to its end on a thread of its own
/// blocked in read(2) (not readabilityHandler:
/// swift-corelibs-libdispatch#949).
final class TextBuffer: Sendable {
    private let descriptor: Int32
    private let buffer = Mutex("")

    init(draining pipe: Pipe) { descriptor = pipe.fileHandleForReading.fileDescriptor }

    var text: String { buffer.withLock { $0 } }

    func start() {
        Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                buffer.withLock { $0 += String(decoding: chunk[0..<count], as: UTF8.self) }
            }
        }.start()
    }
}

public enum HerdError: Error, CustomStringConvertible {
    /// `herd.py serve` or `standin.py` exited or printed no `ready` line;
    /// its stderr.
    case notReady(String)
    /// A `herd.py` command exited with this status (its one line went to
    /// the test's stderr).
    case commandFailed(String, Int32)

    public var description: String {
        switch self {
        case .notReady(let stderr): "the Python server never became ready:\n\(stderr)"
        case .commandFailed(let name, let status): "herd.py \(name) exited \(status)"
        }
    }
}
