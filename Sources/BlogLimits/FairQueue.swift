/// A queue that takes items by owner in turn: first the oldest item of
/// the owner whose turn it is, then the next owner's.
public struct FairQueue<Item> {
    public init() {}

    private var items: [String: [Item]] = [:]
    /// Owners with items, in the order their turns come.
    private var turns: [String] = []
    private var head = 0
    /// Items waiting.
    public private(set) var count = 0

    public var isEmpty: Bool { head == turns.count }

    public mutating func append(_ item: Item, for owner: String) {
        if items[owner, default: []].isEmpty { turns.append(owner) }
        items[owner, default: []].append(item)
        count += 1
    }

    public mutating func next() -> Item? {
        guard head < turns.count else { return nil }
        let owner = turns[head]
        head += 1
        let item = items[owner]!.removeFirst()
        count -= 1
        if items[owner]!.isEmpty {
            items[owner] = nil
        } else {
            turns.append(owner)
        }
        if head > 64 && head * 2 > turns.count {
            turns.removeFirst(head)
            head = 0
        }
        return item
    }
}
