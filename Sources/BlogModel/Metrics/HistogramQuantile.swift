/// A quantile estimated from a Prometheus histogram's buckets, as
/// PromQL's `histogram_quantile` does: the bucket that holds it is found
/// from the cumulative counts, and the value placed within it by linear
/// interpolation (from 0 for the first bucket). Past the largest finite
/// bound it can only say "more than that bound".
///
///     let buckets = [(0.1, 8.0), (0.2, 10.0), (.infinity, 10.0)]
///     HistogramQuantile.estimate(0.5, buckets: buckets)   // .value(0.0625)
public enum HistogramQuantile: Equatable, Sendable {
    /// Within the finite buckets.
    case value(Double)
    /// In the last, unbounded bucket: above this bound.
    case above(Double)

    public typealias Bucket = (bound: Double, count: Double)

    /// `quantile` (0...1) of the observations counted by `buckets`
    /// (upper bound, cumulative count; any order); nil when there are none.
    public static func estimate(_ quantile: Double, buckets: [Bucket]) -> HistogramQuantile? {
        guard let (bucket, lower, below, rank) = locate(quantile, buckets) else { return nil }
        guard bucket.bound.isFinite else { return .above(lower) }
        return .value(lower + (bucket.bound - lower) * (rank - below) / (bucket.count - below))
    }

    /// The upper bound of the bucket that holds `quantile`: for counts
    /// (writes per commit), where a value between two bounds means nothing.
    public static func bound(_ quantile: Double, buckets: [Bucket]) -> HistogramQuantile? {
        guard let (bucket, lower, _, _) = locate(quantile, buckets) else { return nil }
        return bucket.bound.isFinite ? .value(bucket.bound) : .above(lower)
    }

    /// The bucket holding `quantile`, the bound below it and the count
    /// up to it, and the quantile's rank among the observations.
    private static func locate(_ quantile: Double, _ buckets: [Bucket])
        -> (bucket: Bucket, lower: Double, below: Double, rank: Double)? {
        let sorted = buckets.sorted { $0.bound < $1.bound }
        guard let total = sorted.last?.count, total > 0 else { return nil }
        let rank = quantile * total
        var lower = 0.0
        var below = 0.0
        for bucket in sorted {
            if bucket.count >= rank && bucket.count > below { return (bucket, lower, below, rank) }
            if bucket.bound.isFinite { lower = bucket.bound }
            below = bucket.count
        }
        return nil
    }

    /// The buckets of histogram `name` whose other labels are `labels`,
    /// from `samples`.
    public static func buckets(of name: String, labels: [String: String] = [:], in samples: [Sample]) -> [Bucket] {
        samples.compactMap { sample in
            guard sample.name == name + "_bucket", let le = sample.labels["le"] else { return nil }
            var others = sample.labels
            others["le"] = nil
            guard others == labels else { return nil }
            let bound: Double? = le == "+Inf" ? .infinity : Double(le)
            return bound.map { ($0, sample.value) }
        }
    }
}
