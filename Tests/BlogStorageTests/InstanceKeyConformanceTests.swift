import BlogTestSupport
import Dispatch
import Foundation
import Testing
import BlogModel

/// The instance actor's key (`InstanceKeyStorage`), over each backend:
/// none until stored, then the first one stored, whoever races for it.
@Suite("BlogStorage conformance: the instance key")
struct InstanceKeyConformanceTests {
    @Test(arguments: Backend.available) func theFirstKeyStoredIsKept(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let none: String? = try store.instanceKeyPEM()
            #expect(none == nil)
            let first: String = try store.storeInstanceKeyPEM("key-1")
            #expect(first == "key-1")
            let second: String = try store.storeInstanceKeyPEM("key-2")
            #expect(second == "key-1", "the first one stays")
            let read: String? = try store.instanceKeyPEM()
            #expect(read == "key-1")
            // Kept among the site values, apart from the others.
            let other: String = try store.siteValue("feed_id_base", storingIfAbsent: "x")
            #expect(other == "x")
        }
    }

    /// Instances making the key at once all end with the same one.
    @Test(arguments: Backend.available) func keysMadeAtOnceEndAsOne(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let kept = Collector<String>()
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                if let key = try? store.storeInstanceKeyPEM("key-\(index)") { kept.append(key) }
            }
            #expect(kept.all.count == 8)
            #expect(Set(kept.all).count == 1)
            let read: String? = try store.instanceKeyPEM()
            #expect(read == kept.all.first)
        }
    }
}
