/// One request a host read whole (kept when the farm keeps requests).
public struct FarmRequest: Sendable {
    public var method: String
    /// The path as sent, with its query.
    public var path: String
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// `DispatchTime` nanoseconds of its arrival.
    public var arrived: UInt64

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// What one host saw.
public struct FarmHostRecord: Sendable {
    /// POSTs read whole, whatever their answer.
    public var received = 0
    /// Of those, answered 2xx: delivered.
    public var accepted = 0
    /// Answered otherwise (the behaviour's failures and refusals).
    public var refused = 0
    /// POSTs by path (the shared inbox, each actor's inbox).
    public var byPath: [String: Int] = [:]
    /// Requests under way now (from their head to their answer or close).
    public var inFlight = 0
    /// The most ever under way at once.
    public var peak = 0
    /// Every request read, when the farm keeps them.
    public var requests: [FarmRequest] = []
}

/// The whole farm's figures.
public struct FarmTotals: Sendable, Equatable {
    public var received = 0
    public var accepted = 0
    public var refused = 0
    /// Requests under way now, over every host.
    public var inFlight = 0
    /// The most under way at once at any one host.
    public var peakPerHost = 0
    /// The most under way at once over the farm.
    public var peak = 0
    /// Signatures checked and found good, and found bad.
    public var verified = 0
    public var badSignatures = 0
    /// `DispatchTime` nanoseconds of the first POST and of the last one accepted; 0 before.
    public var firstArrival: UInt64 = 0
    public var lastAccepted: UInt64 = 0
}
