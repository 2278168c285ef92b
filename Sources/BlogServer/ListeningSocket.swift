#if canImport(Glibc)
import Glibc
#endif

/// A bound, listening, non-blocking TCP socket.
struct ListeningSocket {
    let fd: Int32
    let port: Int

    /// Binds every address `host` stands for. `*` is every address: one
    /// dual-stack IPv6 socket, or IPv4 only where IPv6 is off.
    static func bind(host: String, port: Int) throws(ServerError) -> [ListeningSocket] {
        if host == "*" {
            if let dual = try? open(family: AF_INET6, address: in6addr_any_storage(port: port), dualStack: true) {
                return [dual]
            }
            return [try open(family: AF_INET, address: in4addr_any_storage(port: port), dualStack: false)]
        }
        var sockets: [ListeningSocket] = []
        var nextPort = port
        do {
            for (family, address) in try resolve(host: host) {
                // With port 0 the first socket picks a port; the others share it.
                var address = address
                setPort(&address, nextPort)
                let socket = try open(family: family, address: address, dualStack: false)
                nextPort = socket.port
                sockets.append(socket)
            }
        } catch {
            // All or nothing: no listener survives a failed start.
            sockets.forEach { close($0.fd) }
            throw error
        }
        return sockets
    }

    private static func open(family: Int32, address: sockaddr_storage, dualStack: Bool) throws(ServerError) -> ListeningSocket {
        let text = "\(SocketAddress.ipString(address)):\(SocketAddress.port(address))"
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket(call: "socket", address: text, errno: errno) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 {
            var v6only: Int32 = dualStack ? 0 : 1
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &v6only, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = address
        let length = socklen_t(family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .socket(call: "bind", address: text, errno: code)
        }
        guard listen(fd, SOMAXCONN) == 0 else {
            let code = errno
            close(fd)
            throw .socket(call: "listen", address: text, errno: code)
        }
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &localLength) }
        }
        return ListeningSocket(fd: fd, port: SocketAddress.port(local))
    }

    private static func resolve(host: String) throws(ServerError) -> [(Int32, sockaddr_storage)] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw .cannotResolve(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var results: [(Int32, sockaddr_storage)] = []
        var seen: Set<String> = []
        for info in sequence(first: first, next: { $0.pointee.ai_next }) {
            let family = info.pointee.ai_family
            guard family == AF_INET || family == AF_INET6, let addr = info.pointee.ai_addr else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.copyMemory(from: UnsafeRawBufferPointer(start: addr, count: Int(info.pointee.ai_addrlen)))
            }
            if seen.insert(SocketAddress.ipString(storage) + "/\(family)").inserted {
                results.append((family, storage))
            }
        }
        return results
    }

    private static func setPort(_ storage: inout sockaddr_storage, _ port: Int) {
        let family = Int32(storage.ss_family)
        withUnsafeMutablePointer(to: &storage) { pointer in
            if family == AF_INET {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = UInt16(port).bigEndian }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = UInt16(port).bigEndian }
            }
        }
    }

    private static func in6addr_any_storage(port: Int) -> sockaddr_storage {
        var storage = sockaddr_storage()
        withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                $0.pointee.sin6_family = sa_family_t(AF_INET6)
                $0.pointee.sin6_port = UInt16(port).bigEndian
                $0.pointee.sin6_addr = in6addr_any
            }
        }
        return storage
    }

    private static func in4addr_any_storage(port: Int) -> sockaddr_storage {
        var storage = sockaddr_storage()
        withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                $0.pointee.sin_family = sa_family_t(AF_INET)
                $0.pointee.sin_port = UInt16(port).bigEndian
                $0.pointee.sin_addr.s_addr = INADDR_ANY
            }
        }
        return storage
    }
}
