import Dispatch
import Foundation

/// Plain threads started one by one and joined together: the attack runs
/// the well-behaved client and the attacker's threads at once, which
/// `onThreads` (one body, and it waits) cannot.
///
/// Threads, not Dispatch's pool: every one of them blocks in socket calls,
/// and the pool would run only about as many as there are cores.
final class ThreadGroup: Sendable {
    private let group = DispatchGroup()

    func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread { [group] in
            body()
            group.leave()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until every started thread has returned.
    func join() {
        group.wait()
    }
}
