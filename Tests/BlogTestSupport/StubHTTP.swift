import BlogCore

/// A test's outgoing client that does one job (answer GETs, or take inbox
/// POSTs): what it does not implement is refused, as a client that must
/// not be asked would refuse it, so a test that reaches it fails plainly.
///
///     final class Pages: StubHTTP {
///         func get(_ url: String, headers: [(String, String)], maxBytes: Int)
///             async throws(OutgoingHTTPError) -> HTTPAnswer { ... }
///     }
public protocol StubHTTP: OutgoingHTTP {}

extension StubHTTP {
    public func get(_ url: String, headers: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        throw .refused("no GETs here")
    }

    public func postForm(_ url: String, fields: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        throw .refused("no forms here")
    }
}
