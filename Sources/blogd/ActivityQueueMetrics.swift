import BlogModel

/// The ActivityPub delivery queue's depth on `/metrics`, read from the
/// database when `/metrics` is asked (`deliveryCounts()`): what waits is
/// in the database, shared by every instance on it, so no process's
/// counter could tell.
enum ActivityQueueMetrics {
    static let activities = "blogd_activity_queue_activities"
    static let deliveries = "blogd_activity_queue_deliveries"
    static let heldBack = "blogd_activity_queue_held_back_total"

    /// Prometheus text for the queue now; empty when the store cannot say
    /// (the rest of /metrics is still worth having).
    static func text(_ store: any BlogStorage) -> String {
        guard let counts = try? store.deliveryCounts() else { return "" }
        return text(counts)
    }

    static func text(_ counts: DeliveryCounts) -> String {
        """
        # HELP \(activities) Posts' activities (Create, Update, Delete) waiting for their fan-out to followers' inboxes.
        # TYPE \(activities) gauge
        \(activities) \(counts.queuedActivities)
        # HELP \(deliveries) Deliveries to inboxes waiting: due, being sent, or backing off after a failure.
        # TYPE \(deliveries) gauge
        \(deliveries) \(counts.queuedDeliveries)
        # HELP \(heldBack) Deliveries moved to a later time because a try to their server failed (the database's count, since it was made).
        # TYPE \(heldBack) counter
        \(heldBack) \(counts.heldBack)

        """
    }
}
