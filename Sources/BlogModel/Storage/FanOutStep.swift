/// What one step of a fan-out in chunks did (`ActivityQueue.fanOutStep`).
public struct FanOutStep: Sendable, Equatable {
    /// Deliveries made by this step.
    public var made: Int
    /// The activity is off the queue: by this step, or before it.
    public var done: Bool

    public init(made: Int, done: Bool) {
        self.made = made
        self.done = done
    }

    /// The targets past `point` (the last inbox a fan-out made a delivery
    /// for; nil: none yet), of `targets` in the stores' order: by the
    /// inbox's bytes (SQLite's BINARY, PostgreSQL's "C" collation).
    public static func remaining(_ targets: [DeliveryTarget], after point: String?) -> ArraySlice<DeliveryTarget> {
        guard let point else { return targets[...] }
        let start = targets.firstIndex { point.utf8.lexicographicallyPrecedes($0.inbox.utf8) } ?? targets.endIndex
        return targets[start...]
    }
}
