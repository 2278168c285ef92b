import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// HTTP's date format (RFC 9110 §5.6.7, IMF-fixdate), both ways, for
/// `Date`, `Last-Modified` and `If-Modified-Since`: whole seconds, UTC.
///
///     HTTPDate.format(784_111_777)                          // "Sun, 06 Nov 1994 08:49:37 GMT"
///     HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")      // 784111777
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The second last asked for and its text: every response carries the
    /// time, and it changes once a second, not once a response.
    private static let latest = Mutex((second: -1, text: ""))

    /// The time now, for a `Date` field.
    static func now() -> String {
        let second = Int(time(nil))
        return latest.withLock { latest in
            if latest.second != second { latest = (second, format(second)) }
            return latest.text
        }
    }

    /// `seconds` since 1970 as an IMF-fixdate.
    static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Seconds since 1970 of an IMF-fixdate; nil for anything else (the
    /// obsolete formats are not worth a cache hit: a client that sends
    /// them gets the whole page).
    static func parse(_ text: String) -> Int? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","), fields[5] == "GMT",
              let day = Int32(fields[1]), let month = months.firstIndex(of: String(fields[2])),
              let year = Int32(fields[3]) else { return nil }
        let clock = fields[4].split(separator: ":")
        guard clock.count == 3, let hour = Int32(clock[0]), let minute = Int32(clock[1]), let second = Int32(clock[2]),
              (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Int(timegm(&parts))
    }
}
