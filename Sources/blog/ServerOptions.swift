import ArgumentParser
import BlogClient

/// Where the server is; shared by every subcommand.
struct ServerOptions: ParsableArguments {
    @Option(help: "The server's host name or address (IPv4 or IPv6).")
    var host = "localhost"

    @Option(help: "The server's TCP port.")
    var port = 51515

    @Option(help: ArgumentHelp("Seconds to wait for connecting, and for each reply.", valueName: "seconds"))
    var timeout = 10.0

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1 to 65535") }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    var client: BlogClient { BlogClient(host: host, port: port, timeout: timeout) }
}

extension ServerOptions {
    /// Runs one call of the client; a client error is reported and becomes
    /// its exit code.
    func call<T>(_ body: (BlogClient) throws(BlogClientError) -> T) throws(ExitCode) -> T {
        do {
            return try body(client)
        } catch {
            throw Exit.failure(for: error, server: self)
        }
    }
}
