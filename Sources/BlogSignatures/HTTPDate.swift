import Foundation

/// The IMF-fixdate of RFC 9110 (`Sun, 06 Nov 1994 08:49:37 GMT`): what
/// `Date` holds on every signed request. Written and read by hand: no
/// shared formatter, no locale.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let (dayNumber, secondOfDay) = seconds.quotientAndRemainderFlooring(86_400)
        let (year, month, day) = civil(fromDays: dayNumber)
        let weekday = days[((dayNumber % 7) + 11) % 7]   // 1970-01-01 was a Thursday
        return "\(weekday), \(pad(day)) \(months[month - 1]) \(year) "
            + "\(pad(secondOfDay / 3600)):\(pad(secondOfDay / 60 % 60)):\(pad(secondOfDay % 60)) GMT"
    }

    /// The moment `text` names; nil for anything but an IMF-fixdate.
    public static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), days.contains(String(parts[0].dropLast())),
              parts[5] == "GMT", parts[1].count == 2, let day = Int(parts[1]),
              let monthIndex = months.firstIndex(of: String(parts[2])), parts[3].count == 4, let year = Int(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, time.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
              let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
              (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let dayNumber = daysSinceEpoch(year, monthIndex + 1, day)
        return Date(timeIntervalSince1970: Double(dayNumber * 86_400 + hour * 3600 + minute * 60 + second))
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    // Howard Hinnant's civil-date algorithms: days since 1970-01-01.
    private static func civil(fromDays z: Int) -> (Int, Int, Int) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysSinceEpoch(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

private extension Int {
    func quotientAndRemainderFlooring(_ divisor: Int) -> (Int, Int) {
        let (q, r) = quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}
