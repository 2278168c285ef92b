import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Nanoseconds of the monotonic clock: immune to wall-clock jumps, cheap
/// enough to read twice per request.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// A tiny, fast, per-client random generator (SplitMix64): each client
/// owns one, so picking the next request kind takes no lock.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The shared budget of `--requests`: each client takes one ticket per
/// request, so the total is exact however the clients' speeds differ.
final class Tickets: Sendable {
    private let remaining: Atomic<Int>

    init(_ count: Int) { remaining = Atomic(count) }

    /// Takes a ticket; `false` once they are all gone.
    func take() -> Bool {
        remaining.subtract(1, ordering: .relaxed).newValue >= 0
    }
}

/// Values gathered from many threads.
final class Collector<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func add(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

/// Runs `body` for every element on a thread of its own and waits for all.
///
/// Real threads, not Dispatch's pool: the clients block in socket calls,
/// and the pool would run only about as many of them as there are cores.
func onThreads<Element: Sendable>(_ elements: [Element], name: String, _ body: @escaping @Sendable (Element) -> Void) {
    let group = DispatchGroup()
    for (index, element) in elements.enumerated() {
        group.enter()
        let thread = Thread {
            body(element)
            group.leave()
        }
        thread.name = "\(name)-\(index)"
        thread.start()
    }
    group.wait()
}

/// Progress for the person at the terminal; stderr, so `--json` output on
/// stdout stays one clean object.
func status(_ line: String) {
    FileHandle.standardError.write(Data("blogbench: \(line)\n".utf8))
}

/// "1 client", "8 clients".
func plural(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
