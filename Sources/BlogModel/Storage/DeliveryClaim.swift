/// How long a claim of a delivery hides it from other claims (the
/// worker's lease, `ActivityDelivery.Settings.lease`): far longer than a
/// send is held, so a row due later than now is either being sent, for
/// at most this long, or waiting out its own backoff.
public enum DeliveryClaim {
    /// Seconds.
    public static let lease: Double = 1800
}
