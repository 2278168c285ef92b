import BlogModel
import BlogWire
import Foundation
import GRDB

// The records as rows of the SQLite schema (`Schema`). Inserts are plain
// SQL (`SQLiteStore`), so a record always has its id. Times are stored as
// text to the millisecond and read back to the nearest one: parsed, the
// text gives a `Date` a hair off the one stored, and a record read back
// must equal the one its insert returned (pages rendered from either are
// the same bytes, and so are both backends' records).

extension UserRecord: FetchableRecord, TableRecord {
    public static let databaseTableName = "users"

    public init(row: Row) throws {
        self.init(id: row["id"], name: row["name"], passwordHash: row["password_hash"],
                  createdAt: Date.nearestMillisecond(row["created_at"]),
                  suspended: (row["suspended_at"] as DatabaseValue?).map { !$0.isNull } ?? false)
    }
}

extension PostRecord: FetchableRecord, TableRecord {
    public static let databaseTableName = "posts"

    public init(row: Row) throws {
        self.init(id: row["id"], userID: row["user_id"], title: row["title"], content: row["content"],
                  createdAt: Date.nearestMillisecond(row["created_at"]), page: row["page"], weight: row["weight"],
                  updatedAt: (row["updated_at"] as Date?).map(Date.nearestMillisecond),
                  place: Self.place(row["latitude"], row["longitude"]),
                  photos: PostPhoto.photos(columnText: row["photos"] ?? ""), contentHTML: row["content_html"],
                  categories: ((row["categories"] as String?) ?? "").split(separator: " ").map(String.init))
    }

    /// The stored place; the columns hold only what `Place` accepted.
    static func place(_ latitude: String?, _ longitude: String?) -> Place? {
        guard let latitude, let longitude else { return nil }
        return try? Place(latitude: latitude, longitude: longitude)
    }
}

extension UserSummary: FetchableRecord {
    public init(row: Row) throws {
        self.init(name: row["name"], registeredAt: Date.nearestMillisecond(row["registered_at"]), postCount: row["posts"],
                  lastPostAt: (row["last_post_at"] as Date?).map(Date.nearestMillisecond),
                  suspended: row["suspended"] ?? false)
    }
}

extension Date {
    /// `date` to the nearest whole millisecond.
    static func nearestMillisecond(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
