/// Where a post was written: a WGS 84 latitude and longitude, as the
/// client sent them (`geopost:NAME:LAT:LON:TITLE:CONTENT`).
///
/// Kept as decimal text as well as numbers, so that what is stored, shown
/// and put in the feed is exactly what the client sent, never a binary
/// float's nearest neighbour (`48.1374` stays `48.1374`).
///
///     let place = try Place(latitude: "48.1374", longitude: "11.5755")
///     place.latitudeValue     // 48.1374
///     try Place(latitude: "91", longitude: "0")    // FieldError.badCoordinate
public struct Place: Equatable, Hashable, Sendable {
    /// Decimal degrees, north positive: `-90` ... `90`.
    public let latitude: String
    /// Decimal degrees, east positive: `-180` ... `180`.
    public let longitude: String

    public var latitudeValue: Double { Double(latitude)! }
    public var longitudeValue: Double { Double(longitude)! }

    /// Digits after the point at most: 10 is about 0.01 mm, past any GPS.
    public static let maxDecimals = 10

    public init(latitude: String, longitude: String) throws(FieldError) {
        self.latitude = try Self.coordinate(latitude, limit: 90)
        self.longitude = try Self.coordinate(longitude, limit: 180)
    }

    /// A plain decimal (`-12.5`, `7`, `0.000001`): an optional minus, 1 to
    /// 3 digits, an optional point with 1 to `maxDecimals` digits, within
    /// ±`limit`. No exponent, no `+`, no spaces, no `nan`: one spelling per
    /// number the pages and feeds can show as sent. `-0` becomes `0`.
    static func coordinate(_ text: String, limit: Int) throws(FieldError) -> String {
        var bytes = Substring(text).utf8
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        let whole = bytes.prefix { (0x30...0x39).contains($0) }
        let rest = bytes.dropFirst(whole.count)
        guard (1...3).contains(whole.count) else { throw .badCoordinate }
        if let point = rest.first {
            let decimals = rest.dropFirst()
            guard point == UInt8(ascii: "."), (1...maxDecimals).contains(decimals.count),
                  decimals.allSatisfy({ (0x30...0x39).contains($0) }) else { throw .badCoordinate }
        }
        guard let value = Double(text), abs(value) <= Double(limit) else { throw .badCoordinate }
        if value == 0 && negative { return String(text.dropFirst()) }
        return text
    }
}
