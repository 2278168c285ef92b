/// Why the server could not start.
public enum ServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The host name or address could not be resolved.
    case cannotResolve(host: String, reason: String)
    /// A socket call failed; `call` names it, `errno` says why.
    case socket(call: String, address: String, errno: Int32)

    public var description: String {
        switch self {
        case .cannotResolve(let host, let reason):
            "cannot resolve \(host): \(reason)"
        case .socket(let call, let address, let code):
            "\(call) \(address): \(String(cString: strerror(code)))"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
