import BlogCore
import BlogTestSupport
import Dispatch
import Foundation
import Testing
import BlogModel

/// Site values (`siteValue(_:storingIfAbsent:)`), over each backend: the
/// first value stored stays, which the feeds' ids rely on.
@Suite("Site value conformance")
struct SiteValueConformanceTests {
    @Test(arguments: Backend.available) func firstValueStays(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            #expect(try store.siteValue("feed_id_base", storingIfAbsent: "https://old.example/") == "https://old.example/")
            #expect(try store.siteValue("feed_id_base", storingIfAbsent: "https://new.example/") == "https://old.example/")
            #expect(try store.siteValue("other", storingIfAbsent: "x") == "x", "keys are apart")
            #expect(try store.siteValue("feed_id_base", storingIfAbsent: "") == "https://old.example/")
        }
    }

    /// Callers racing for the first value all get the same one.
    @Test(arguments: Backend.available) func racingCallersAgree(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let answers = Collector<String>()
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                if let value = try? store.siteValue("race", storingIfAbsent: "value \(index)") { answers.append(value) }
            }
            #expect(answers.all.count == 8)
            #expect(Set(answers.all).count == 1)
        }
    }
}
