import Testing
import BlogModel
@testable import BlogCore

@Suite("LRUCache")
struct LRUCacheTests {
    @Test func forgetsTheLeastRecentlyUsed() {
        var cache = LRUCache<String, Int>(capacity: 2)
        cache["a"] = 1
        cache["b"] = 2
        #expect(cache["a"] == 1) // a is the most recent now
        cache["c"] = 3
        #expect(cache["b"] == nil)
        #expect(cache["a"] == 1 && cache["c"] == 3)
        #expect(cache.count == 2)
    }

    @Test func removalKeepsTheOrder() {
        var cache = LRUCache<Int, Int>(capacity: 3)
        for key in 0 ..< 3 { cache[key] = key }
        cache[0] = nil
        cache[3] = 3
        cache[4] = 4 // forgets 1, the oldest left
        #expect(cache[1] == nil)
        #expect(cache[2] == 2 && cache[3] == 3 && cache[4] == 4)
    }

    /// A large working set in a small cache: always bounded, and the
    /// recent half stays (a cache that starts over loses it all).
    @Test func staysBoundedAndKeepsTheRecent() {
        var cache = LRUCache<Int, Int>(capacity: 100)
        for key in 0 ..< 10_000 {
            cache[key] = key
            #expect(cache.count <= 100)
        }
        #expect((9_900 ..< 10_000).allSatisfy { cache[$0] == $0 })
    }
}
