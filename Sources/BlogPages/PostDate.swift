import Foundation

/// How post dates are written on pages, in UTC, without Foundation's
/// calendar (a page holds up to a hundred dates; a calendar costs micro-
/// seconds each).
package enum PostDate {
    /// The parts of a UTC moment.
    package struct Parts: Equatable {
        package var year, month, day, hour, minute, second: Int
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Whole seconds since 1970 broken into a proleptic Gregorian date
    /// (Howard Hinnant's days-to-civil algorithm).
    package static func parts(_ date: Date) -> Parts {
        let seconds = Int((date.timeIntervalSince1970).rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return Parts(year: year, month: month, day: day,
                     hour: second / 3600, minute: second % 3600 / 60, second: second % 60)
    }

    /// `2026-11-22T18:47:05Z`, for `<time datetime>`.
    package static func machine(_ date: Date) -> String {
        let p = parts(date)
        return "\(pad(p.year, 4))-\(pad(p.month))-\(pad(p.day))T\(pad(p.hour)):\(pad(p.minute)):\(pad(p.second))Z"
    }

    /// `2026-11-22`, for tag URIs.
    package static func day(_ date: Date) -> String {
        let p = parts(date)
        return "\(pad(p.year, 4))-\(pad(p.month))-\(pad(p.day))"
    }

    /// `22 Nov 2026, 18:47 UTC`, for people.
    package static func human(_ date: Date) -> String {
        let p = parts(date)
        return "\(p.day) \(months[p.month - 1]) \(p.year), \(pad(p.hour)):\(pad(p.minute)) UTC"
    }

    private static func pad(_ value: Int, _ width: Int = 2) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
