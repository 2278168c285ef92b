import Foundation

/// Post and user times travel as whole milliseconds since 1970 (pages show
/// seconds; SQLite keeps milliseconds). PostgresNIO's own `Date` coding
/// truncates binary fractions of microseconds, so a stored time could read
/// back a microsecond early and, on a second's edge, show another second on
/// the page; integers make every instance read exactly the same `Date`.
enum Milliseconds {
    /// `date` cut to its millisecond.
    static func of(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `date` as the store keeps it.
    static func truncated(_ date: Date) -> Date {
        Self.date(of(date))
    }

    /// SQL reading a timestamptz column as milliseconds (bigint).
    static func select(_ column: String) -> String {
        "(round(extract(epoch FROM \(column)) * 1000))::bigint"
    }
}
