import Foundation
import Testing
@testable import BlogCore

struct RandomUUIDTests {
    /// Version 4, RFC 4122 variant, and not the same twice.
    @Test func versionFourAndDistinct() {
        let uuids = (0..<1000).map { _ in UUID.random() }
        #expect(Set(uuids).count == 1000)
        for uuid in uuids {
            let text = uuid.uuidString
            let parts = text.split(separator: "-")
            #expect(parts[2].first == "4", "\(text)")
            #expect("89AB".contains(parts[3].first!), "\(text)")
        }
    }
}
