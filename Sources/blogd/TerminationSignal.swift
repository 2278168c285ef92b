import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The write end of the self-pipe, for the signal handler (which may only
/// make async-signal-safe calls, so it cannot touch Swift objects).
nonisolated(unsafe) private var signalPipeWrite: Int32 = -1
/// Signals seen so far: a second one ends the process at once, for an
/// operator whose graceful stop hangs.
nonisolated(unsafe) private var signalsSeen: Int32 = 0

/// SIGINT and SIGTERM, caught from the moment this is created; a second
/// one exits at once. And SIGHUP, which never stops the process: it asks
/// for a reload.
///
/// A plain `sigaction` handler is in place before `init` returns, so a
/// signal that arrives while the server is still starting is neither lost
/// nor fatal. (A Dispatch signal source needs the signal ignored first and
/// installs its own handler later, leaving a window where a signal
/// vanishes.) The handler writes the signal number to a pipe; `next()`
/// reads it.
final class TerminationSignal: Sendable {
    /// What a signal asks for.
    enum Request: Sendable, Equatable {
        /// SIGINT or SIGTERM: stop gracefully (named for the log).
        case stop(String)
        /// SIGHUP: read the configuration again.
        case reload
    }

    private let readEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        pipe(&ends)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        readEnd = ends[0]
        signalPipeWrite = ends[1]
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                if number != SIGHUP {
                    signalsSeen += 1
                    if signalsSeen > 1 { _exit(128 + number) }
                }
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWrite, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
    }

    /// Suspends until the next signal (returns at once if one came
    /// already); what it asks for.
    func next() async -> Request {
        let fd = readEnd
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var byte: UInt8 = 0
                while read(fd, &byte, 1) != 1 && errno == EINTR {}
                switch Int32(byte) {
                case SIGHUP: continuation.resume(returning: .reload)
                case SIGINT: continuation.resume(returning: .stop("SIGINT"))
                default: continuation.resume(returning: .stop("SIGTERM"))
                }
            }
        }
    }
}
