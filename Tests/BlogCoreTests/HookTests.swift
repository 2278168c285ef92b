import Synchronization
import Testing
@testable import BlogCore
import BlogModel
@testable import BlogPages

/// The stored callbacks must cost the same on the ten-thousandth call as
/// on the first. A closure kept as `Mutex<(() -> Void)?>` grew two thunks
/// deeper with each call: a post's wake-up walked every earlier one, and
/// the thread's stack grew until it overflowed.
@Suite("Hook")
struct HookTests {
    /// Where the action's frame sits on the stack, call after call.
    final class Depths: Sendable {
        let seen = Mutex<[Int]>([])

        @inline(never)
        func record() {
            var local = 0
            let address = withUnsafeMutablePointer(to: &local) { Int(bitPattern: $0) }
            seen.withLock { $0.append(address) }
        }

        /// The stack's growth from the first call to the last, in bytes.
        var growth: Int { seen.withLock { ($0.first ?? 0) - ($0.last ?? 0) } }
        var count: Int { seen.withLock { $0.count } }
    }

    static let calls = 10_000

    @Test func aVoidHookDoesNotDeepenTheStack() {
        let depths = Depths()
        let hook = Hook<Void>()
        hook.set { depths.record() }
        for _ in 0..<Self.calls { hook() }
        #expect(depths.count == Self.calls)
        #expect(depths.growth == 0)
    }

    @Test func theMentionSignalDoesNotDeepenTheStack() {
        let depths = Depths()
        let signal = MentionSignal()
        signal.set { depths.record() }
        for _ in 0..<Self.calls { signal.changed("see https://example.org/") }
        signal.changed("no link here")
        #expect(depths.count == Self.calls)
        #expect(depths.growth == 0)
    }

    @Test func pageChangesDoNotDeepenTheStack() {
        let depths = Depths()
        let changes = PageChanges()
        let names = Mutex<Set<String>>([])
        changes.observe { name in
            names.withLock { _ = $0.insert(name) }
            depths.record()
        }
        for index in 0..<Self.calls { changes.changed("alice/\(index % 3).html") }
        #expect(depths.count == Self.calls)
        #expect(depths.growth == 0)
        #expect(names.withLock { $0 } == ["alice/0.html", "alice/1.html", "alice/2.html"])
    }

    @Test func anUnsetHookIsQuiet() {
        let hook = Hook<String>()
        hook("nobody listens")
    }
}
