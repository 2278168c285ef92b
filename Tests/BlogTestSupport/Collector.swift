import Synchronization

/// Values collected from many threads, in the order they came.
///
///     let failures = Collector<String>()
///     DispatchQueue.concurrentPerform(iterations: 8) { _ in failures.append("...") }
///     #expect(failures.all.isEmpty)
public final class Collector<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    public init() {}

    public func append(_ item: Element) { items.withLock { $0.append(item) } }

    public var all: [Element] { items.withLock { $0 } }
}
