import AsyncHTTPClient
import NIOCore
import Synchronization

/// The time limit of one bounded fetch, kept on the event loop its
/// requests run on (their channels and their response handling too).
///
/// Why there: the deliveries' HTTP client runs on an event loop thread at
/// nice 10. A limit kept at normal priority (a task sleeping on Swift's
/// clock, as it was) fired on time on a starved machine while that loop
/// had not yet had the CPU to read an answer already in its socket: the
/// delivery counted as timed out, was retried, and arrived twice. On the
/// loop itself, the limit and the answer are decided by one thread in the
/// loop's own order: a tick reads the sockets first and runs the timers
/// due after, so an answer that arrived before the loop got the CPU again
/// is taken, and the limit then finds nothing left to end. (A loop
/// preempted in the middle of a tick runs a timer that came due meanwhile
/// before its next read: a narrow window, not closed here.)
///
/// The rule, on the loop: an exchange whose response has ended
/// (`answered`) before `expire` is taken; `expire` fails the exchange
/// under way, and every one begun after it.
final class FetchDeadline: Sendable {
    /// The loop of the fetch's requests, and of this limit.
    let loop: any EventLoop

    private struct State {
        var expired = false
        /// The exchange under way, failed by `expire`.
        var current: HTTPClient.Task<FetchedResponse>?
        /// The task waiting in `expired()`, and whether it was cancelled.
        var waiter: CheckedContinuation<Void, Never>?
        var waiterCancelled = false
    }

    private let state = Mutex(State())

    init(loop: any EventLoop) { self.loop = loop }

    var isExpired: Bool { state.withLock { $0.expired } }

    /// The time is up (run on `loop`): fails the exchange under way,
    /// unless its response ended first, and wakes `expired()`.
    func expire() {
        let (current, waiter) = state.withLock { state in
            state.expired = true
            defer { (state.current, state.waiter) = (nil, nil) }
            return (state.current, state.waiter)
        }
        current?.fail(reason: FetchError.timedOut)
        waiter?.resume()
    }

    /// Whether a response that has just ended on `loop` is taken: yes,
    /// unless the limit expired before it.
    func answered() -> Bool { !isExpired }

    /// Keeps `task` to fail it when the time is up; fails it at once when
    /// the time is up already.
    func begin(_ task: HTTPClient.Task<FetchedResponse>) {
        let expired = state.withLock { state in
            if !state.expired { state.current = task }
            return state.expired
        }
        if expired { task.fail(reason: FetchError.timedOut) }
    }

    /// The exchange `task` is over.
    func end(_ task: HTTPClient.Task<FetchedResponse>) {
        state.withLock { state in
            if state.current === task { state.current = nil }
        }
    }

    /// Returns when the time is up, or when the task waiting is cancelled.
    func expired() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.expired || state.waiterCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiterCancelled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
