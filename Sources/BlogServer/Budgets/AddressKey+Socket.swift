import BlogLimits
import BlogSockets

extension AddressKey {
    /// The key of a peer's socket address.
    public init(_ address: SocketAddress) {
        self.init(ipBytes: address.ipBytes)
    }
}
