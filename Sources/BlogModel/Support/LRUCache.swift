/// A map of at most `capacity` entries that forgets the least recently
/// used one when full: each lookup and insert O(1), no sweep, no start
/// over (a cache that cleared itself at its bound made every lookup miss
/// at once).
///
///     var cache = LRUCache<String, Int>(capacity: 2)
///     cache["a"] = 1; cache["b"] = 2
///     _ = cache["a"]          // a is now the most recent
///     cache["c"] = 3          // forgets b
package struct LRUCache<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var newer: Int?
        var older: Int?
    }

    package let capacity: Int
    private var nodes: [Node] = []
    private var index: [Key: Int] = [:]
    private var newest: Int?
    private var oldest: Int?

    package init(capacity: Int) {
        precondition(capacity >= 1)
        self.capacity = capacity
    }

    package var count: Int { index.count }

    package subscript(key: Key) -> Value? {
        mutating get {
            guard let slot = index[key] else { return nil }
            touch(slot)
            return nodes[slot].value
        }
        set {
            if let newValue { insert(newValue, for: key) } else { remove(key) }
        }
    }

    private mutating func insert(_ value: Value, for key: Key) {
        if let slot = index[key] {
            nodes[slot].value = value
            touch(slot)
            return
        }
        let slot: Int
        if index.count < capacity {
            slot = nodes.count
            nodes.append(Node(key: key, value: value, newer: nil, older: nil))
        } else {
            // Reuse the oldest's slot.
            slot = oldest!
            unlink(slot)
            index[nodes[slot].key] = nil
            nodes[slot] = Node(key: key, value: value, newer: nil, older: nil)
        }
        index[key] = slot
        linkAsNewest(slot)
    }

    private mutating func remove(_ key: Key) {
        guard let slot = index.removeValue(forKey: key) else { return }
        unlink(slot)
        // Keep the slots dense: move the last node into the hole.
        let last = nodes.count - 1
        if slot != last {
            nodes[slot] = nodes[last]
            index[nodes[slot].key] = slot
            if let newer = nodes[slot].newer { nodes[newer].older = slot } else { newest = slot }
            if let older = nodes[slot].older { nodes[older].newer = slot } else { oldest = slot }
        }
        nodes.removeLast()
    }

    private mutating func touch(_ slot: Int) {
        guard newest != slot else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (nodes[slot].newer, nodes[slot].older)
        if let newer { nodes[newer].older = older } else { newest = older }
        if let older { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = nil
        nodes[slot].older = nil
    }

    private mutating func linkAsNewest(_ slot: Int) {
        nodes[slot].older = newest
        if let newest { nodes[newest].newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }
}
