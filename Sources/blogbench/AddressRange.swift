import BlogSockets

extension SocketAddress {
    /// This address and the `count - 1` after it (`127.0.0.2`, `127.0.0.3`,
    /// ...), counting in the address's last bytes; nil when the range runs
    /// past the family's last address.
    func following(_ count: Int) -> [SocketAddress]? {
        guard count >= 1 else { return [] }
        var bytes = ipBytes
        var addresses = [self]
        while addresses.count < count {
            guard Self.increment(&bytes), let next = SocketAddress(ipBytes: bytes, port: port) else { return nil }
            addresses.append(next)
        }
        return addresses
    }

    /// Adds one to a big-endian number; false when it wraps around.
    private static func increment(_ bytes: inout [UInt8]) -> Bool {
        for index in bytes.indices.reversed() {
            bytes[index] &+= 1
            if bytes[index] != 0 { return true }
        }
        return false
    }
}
