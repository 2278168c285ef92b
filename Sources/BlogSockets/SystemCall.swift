#if canImport(Glibc)
import Glibc
#endif

/// The result of a non-blocking call: done, or try again when ready.
public enum IOResult<Value: Sendable>: Sendable {
    case done(Value)
    /// EAGAIN / EWOULDBLOCK: nothing could be done right now.
    case wouldBlock
}

/// Runs a system call that returns -1 and sets errno on failure, again
/// after EINTR, and throws the errno of any other failure.
///
/// `errno` is read right after the call, before anything else can run and
/// overwrite it.
@inline(__always)
@discardableResult
func systemCall<T: FixedWidthInteger>(_ call: String, address: String? = nil, _ body: () -> T) throws(SocketError) -> T {
    while true {
        let result = body()
        guard result == -1 else { return result }
        let code = errno
        if code == EINTR { continue }
        throw .system(call: call, errno: code, address: address)
    }
}

/// As `systemCall`, but EAGAIN is an answer, not an error.
@inline(__always)
func nonBlockingCall<T: FixedWidthInteger & Sendable>(_ call: String, _ body: () -> T) throws(SocketError) -> IOResult<T> {
    while true {
        let result = body()
        guard result == -1 else { return .done(result) }
        let code = errno
        switch code {
        case EINTR: continue
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        default: throw .system(call: call, errno: code)
        }
    }
}
