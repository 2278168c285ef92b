/// One host of an `InboxFarm`: a loopback address with a port of its own,
/// its shared inbox at `/inbox`, and its actors under `/users/NAME`.
public struct FarmHost: Sendable, Hashable {
    /// Its place in the farm, from 0.
    public let index: Int
    /// A loopback address (`127.B.X.Y`).
    public let address: String
    public let port: Int

    /// `http://ADDRESS:PORT`.
    public var base: String { "http://\(address):\(port)" }
    /// What a signature's `host` covers, and what senders limit per host.
    public var authority: String { "\(address):\(port)" }
    /// The server's shared inbox.
    public var sharedInbox: String { base + "/inbox" }

    /// The actor id of `name` on this host.
    public func actor(_ name: String) -> String { base + "/users/\(name)" }
    /// `name`'s own inbox.
    public func inbox(_ name: String) -> String { actor(name) + "/inbox" }

    /// The `index`-th loopback address of block `block` (`127.block.X.Y`,
    /// Y from 1 to 250): all of 127/8 is loopback on Linux, so each host
    /// is a distinct peer without any set-up.
    public static func address(of index: Int, block: Int = 1) -> String {
        precondition(index >= 0 && index < 250 * 256, "at most 64,000 hosts in a block")
        return "127.\(block).\(index / 250).\(index % 250 + 1)"
    }
}
