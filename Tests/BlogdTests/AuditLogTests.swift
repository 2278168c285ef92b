import Foundation
import Testing

/// The audit log of the real `blogd`: one `request` line per request, with
/// who, what and how it ended, and never a secret or a post's text.
@Suite(.serialized)
struct AuditLogTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    /// The `key=value` metadata of a log line (swift-log's stream format:
    /// `DATE LEVEL LABEL: key=value ... [MODULE] message`).
    func metadata(_ line: String) -> [String: String] {
        guard let colon = line.range(of: ": "), let module = line.range(of: " [", options: .backwards) else { return [:] }
        var fields: [String: String] = [:]
        for token in line[colon.upperBound ..< module.lowerBound].split(separator: " ") {
            guard let equals = token.firstIndex(of: "=") else { continue }
            fields[String(token[..<equals])] = String(token[token.index(after: equals)...])
        }
        return fields
    }

    @Test func oneLinePerRequestAndNoSecrets() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0",
             "--db", folder.appendingPathComponent("data/blog.sqlite").path,
             "--public", folder.appendingPathComponent("public").path],
            environment: environment)
        defer { server.ensureStopped() }
        let port = try server.waitForPort()

        // Distinctive strings: none of them may reach the log.
        let password = "Pw-Zebra-7731"
        let wrongPassword = "Wrong-Quokka-9182"
        let badNamePassword = "Pw-Ibex-4410"
        let title = "Title-Marmot-3356"
        let content = "Content-Narwhal-5521: the secret text"
        let ghostContent = "Content-Okapi-6604"
        let garbled = "Arg-Wombat-2291"

        // (message, reply, command, user): nil command/user when the message
        // did not parse.
        let requests: [(String, String, String?, String?)] = [
            ("register:auditor:\(password)[E];", "reg:OK", "register", "auditor"),
            ("login:auditor:\(wrongPassword)[E];", "log:NA", "login", "auditor"),
            ("login:auditor:\(password)[E];", "log:OK", "login", "auditor"),
            ("newpost:auditor:\(title):\(content)[E];", "post:OK", "newpost", "auditor"),
            ("newpost:ghost:\(title):\(ghostContent)[E];", "post:NA", "newpost", "ghost"),
            ("register:auditor:\(password)[E];", "reg:NA", "register", "auditor"),
            ("publish:auditor:\(garbled)[E];", "err:CMD", nil, nil),
            ("login:\(garbled)[E];", "err:ARGS", nil, nil),
            ("register:bad name!:\(badNamePassword)[E];", "err:ARGS", nil, nil),
        ]
        for (message, reply, _, _) in requests {
            #expect(try exchange(message, port: port) == reply + "[E];", "\(message)")
        }
        #expect(server.stop() == 0)
        // The stderr pipe may deliver its last bytes just after the exit.
        server.waitUntil(timeout: 60) { server.stderr.contains("stopped") }

        let lines = server.requestLines
        #expect(lines.count == requests.count, "\(lines.joined(separator: "\n"))")
        for (line, (message, reply, command, user)) in zip(lines, requests) {
            let fields = metadata(line)
            #expect(fields["peer"] == "127.0.0.1", "\(line)")
            #expect(fields["reply"] == reply, "\(message): \(line)")
            #expect(fields["command"] == command, "\(message): \(line)")
            #expect(fields["user"] == user, "\(message): \(line)")
            #expect(fields["ms"].flatMap(Double.init).map { $0 >= 0 } == true, "\(line)")
            #expect(Set(fields.keys).isSubset(of: ["peer", "reply", "command", "user", "ms"]), "\(line)")
        }

        let log = server.stderr
        for secret in [password, wrongPassword, badNamePassword, title, content, "Content-Narwhal", ghostContent, garbled] {
            #expect(!log.contains(secret), "\(secret) is in the log")
        }
    }

    @Test func failuresWithoutAMessageAreLoggedOnceEach() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0",
             "--db", folder.appendingPathComponent("data/blog.sqlite").path,
             "--public", folder.appendingPathComponent("public").path],
            environment: environment.merging(["BLOGD_READ_TIMEOUT": "1", "BLOGD_MAX_MESSAGE_BYTES": "1024"]) { $1 })
        defer { server.ensureStopped() }
        let port = try server.waitForPort()

        // Too large, too slow, cut short by the peer's close.
        let big = try WireConnection(port: port)
        big.sendAll(Array("login:x:".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 4096))
        #expect(try big.readToEnd() == "err:SIZE[E];")
        big.close()
        let slow = try WireConnection(port: port)
        try slow.send("login:x:Slow-Secret-8812")
        #expect(try slow.readToEnd() == "err:TIME[E];")
        slow.close()
        let cut = try WireConnection(port: port)
        try cut.send("login:x:Cut-Secret-4471")
        shutdown(cut.fd, Int32(SHUT_WR))
        #expect(try cut.readToEnd() == "err:ARGS[E];")
        cut.close()
        // A client that connects and vanishes sent no request: no line.
        try WireConnection(port: port).close()
        usleep(200_000)
        #expect(server.stop() == 0)
        server.waitUntil(timeout: 60) { server.stderr.contains("stopped") }

        let replies = server.requestLines.map { metadata($0)["reply"] }
        #expect(replies == ["err:SIZE", "err:TIME", "err:ARGS"], "\(server.requestLines)")
        for line in server.requestLines { #expect(metadata(line)["peer"] == "127.0.0.1", "\(line)") }
        #expect(!server.stderr.contains("Slow-Secret"))
        #expect(!server.stderr.contains("Cut-Secret"))
    }
}
