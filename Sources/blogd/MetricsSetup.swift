import BlogModel
import Metrics
import Prometheus

/// The metrics of `blogd serve`: swift-metrics into one Prometheus
/// registry, which the metrics listener prints. The libraries only speak
/// swift-metrics; this is the one place that names a backend.
///
/// It must run before the database, the service or the server is made:
/// they make their metrics once, from whatever system is in force then,
/// and one made earlier would count into nothing for good.
///
///     let registry = MetricsSetup.bootstrap()
///     let text = registry.emitToString()
enum MetricsSetup {
    /// Request latency, from a reply on the loop (well under a millisecond)
    /// to a login's scrypt (about 100 ms in a release build) and a request
    /// that waited out its storage deadline (3 s by default).
    static let latencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(75), .milliseconds(100),
        .milliseconds(150), .milliseconds(200), .milliseconds(300), .milliseconds(500), .milliseconds(750),
        .seconds(1), .seconds(2), .seconds(3), .seconds(5), .seconds(10),
    ]

    /// A lane's wait: nothing, usually; up to `max_hash_wait` (2 s) for
    /// the hash lane under a flood of logins.
    static let waitBuckets: [Duration] = [
        .microseconds(100), .microseconds(500), .milliseconds(1), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(2), .seconds(5),
    ]

    /// A group commit's hold on the writer and a write's wait for it:
    /// well under a millisecond alone, a few with a fan-out's chunks, up to
    /// the storage deadline (3 s) on a stuck disk.
    static let commitBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(3), .milliseconds(5), .microseconds(7500), .milliseconds(10), .milliseconds(15),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(3),
    ]

    /// Writes per group commit: 1 when quiet, up to the batch limit (256).
    static let batchBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256]

    /// Makes the registry and puts it in force for swift-metrics. Once
    /// per process.
    static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = latencyBuckets
        factory.durationHistogramBuckets = [MetricName.requestDuration: latencyBuckets, MetricName.laneWait: waitBuckets,
                                            MetricName.groupCommitDuration: commitBuckets,
                                            MetricName.storageWriteDuration: commitBuckets]
        factory.valueHistogramBuckets = [MetricName.groupCommitBatchSize: batchBuckets]
        MetricsSystem.bootstrap(factory)
        return registry
    }

    /// What `/metrics` answers: the registry's figures with a `# HELP`
    /// line for each, then the process's own (`ProcessMetrics`), then the
    /// ActivityPub delivery queue's depth when a store is given
    /// (`ActivityQueueMetrics`).
    static func exposition(_ registry: PrometheusCollectorRegistry, activityQueue store: (any BlogStorage)? = nil) -> [UInt8] {
        Array((MetricsHelp.adding(to: registry.emitToString()) + ProcessMetrics.text()
               + (store.map(ActivityQueueMetrics.text) ?? "")).utf8)
    }
}
