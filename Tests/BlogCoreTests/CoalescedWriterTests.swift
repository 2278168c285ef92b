import Dispatch
import Logging
import Synchronization
import Testing
@testable import BlogCore

/// The writer behind feeds and the index: at most one write per key per
/// interval. The interval here is an hour, so no timer fires during a
/// test: what is checked is what happens before it would.
struct CoalescedWriterTests {
    final class Recorder: Sendable {
        let writes = Mutex<[(key: Int64, value: Int)]>([])
        let written = DispatchSemaphore(value: 0)
    }

    func writer(_ recorder: Recorder) -> CoalescedWriter<Int> {
        CoalescedWriter("test", interval: 3600, logger: Logger(label: "test")) { key, value in
            recorder.writes.withLock { $0.append((key, value)) }
            recorder.written.signal()
        }
    }

    /// A first change is written at once; the changes after it, even long
    /// after the write ended, wait for the interval (a blog posted to
    /// every 70 ms was written once a post when the key went idle after
    /// each write); a flush writes the latest value.
    @Test func changesAfterAWriteWaitForTheInterval() {
        let recorder = Recorder()
        let feeds = writer(recorder)
        feeds.changed(7, 1)
        recorder.written.wait()
        feeds.settle()
        for value in 2...50 {
            feeds.changed(7, value)
            feeds.settle()
        }
        #expect(recorder.writes.withLock { $0.map(\.value) } == [1])
        feeds.flushAll()
        #expect(recorder.writes.withLock { $0.map(\.value) } == [1, 50])
    }

    /// Keys are independent: another key's first change is written at once.
    @Test func eachKeyHasItsOwnInterval() {
        let recorder = Recorder()
        let feeds = writer(recorder)
        feeds.changed(1, 10)
        recorder.written.wait()
        feeds.changed(1, 11)
        feeds.changed(2, 20)
        recorder.written.wait()
        feeds.settle()
        #expect(recorder.writes.withLock { $0.map { [$0.key, Int64($0.value)] } } == [[1, 10], [2, 20]])
        feeds.flushAll()
        #expect(recorder.writes.withLock { $0.count } == 3)
    }

    /// Values waiting for one write are merged as the writer says (the
    /// index: a full read asked for is not lost to a later post), and a
    /// flush merges too.
    @Test func waitingValuesAreMerged() {
        let recorder = Recorder()
        let index = CoalescedWriter<Int>("test", interval: 3600, logger: Logger(label: "test"), merge: max) { key, value in
            recorder.writes.withLock { $0.append((key, value)) }
            recorder.written.signal()
        }
        index.changed(0, 1)
        recorder.written.wait()
        index.settle()
        index.changed(0, 9)
        index.changed(0, 2)
        index.flushAll()
        index.changed(0, 3)
        index.flush(0, 1)
        #expect(recorder.writes.withLock { $0.map(\.value) } == [1, 9, 3])
    }
}
