/// What an attacker counted, by name ("reply err:BUSY", "opened", ...).
///
/// Names rather than fields because every attack meets different things;
/// the report prints whatever came. Counts add up across threads; maxima
/// (connections held at the peak) take the largest.
struct AttackTally: Sendable, Equatable {
    private(set) var counts: [String: Int] = [:]
    private(set) var maxima: [String: Int] = [:]

    mutating func add(_ name: String, _ amount: Int = 1) {
        counts[name, default: 0] += amount
    }

    mutating func raise(_ name: String, to value: Int) {
        maxima[name] = max(maxima[name] ?? 0, value)
    }

    subscript(name: String) -> Int { counts[name] ?? maxima[name] ?? 0 }

    mutating func merge(_ other: AttackTally) {
        counts.merge(other.counts, uniquingKeysWith: +)
        maxima.merge(other.maxima, uniquingKeysWith: max)
    }

    /// Counts and maxima together, for the report.
    var all: [String: Int] { counts.merging(maxima) { count, _ in count } }

    /// The counts whose names start with `prefix`, largest first, prefix removed.
    func entries(startingWith prefix: String) -> [(name: String, count: Int)] {
        counts.filter { $0.key.hasPrefix(prefix) }
            .map { (String($0.key.dropFirst(prefix.count)), $0.value) }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
    }

    /// The sum of the counts whose names start with `prefix`.
    func total(startingWith prefix: String) -> Int {
        counts.filter { $0.key.hasPrefix(prefix) }.values.reduce(0, +)
    }
}

/// 12345 as "12,345": the report's summary lines are read, not parsed.
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(digit)
    }
    return (value < 0 ? "-" : "") + out
}
