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
}
