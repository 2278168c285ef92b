#if canImport(Glibc)
import Glibc
#endif

/// Why a socket call failed, with the system's own code.
///
///     do { try socket.bind(to: address) } catch {
///         print(error)   // "bind 127.0.0.1:51515: Address already in use"
///     }
public enum SocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A system call failed: `call` names it, `errno` says why, `address`
    /// (when known) is what it was about.
    case system(call: String, errno: Int32, address: String? = nil)
    /// getaddrinfo found no usable address: `code` is its `EAI_*` result.
    case cannotResolve(host: String, code: Int32, reason: String)
    /// The deadline passed before the call could finish.
    case timedOut(call: String)

    /// The errno of a failed system call, if that is what this is.
    public var errno: Int32? {
        if case .system(_, let code, _) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .system(let call, let code, let address):
            "\(call)\(address.map { " \($0)" } ?? ""): \(String(cString: strerror(code)))"
        case .cannotResolve(let host, _, let reason):
            "cannot resolve \(host): \(reason)"
        case .timedOut(let call):
            "\(call): timed out"
        }
    }
}
