import BlogCore
import GRDB

// The records as rows of the SQLite schema (`Schema`): their columns are
// their coding keys. Inserts are plain SQL (`BlogStore`), so a record
// always has its id.

extension UserRecord: @retroactive FetchableRecord, @retroactive TableRecord {
    public static let databaseTableName = "users"
}

extension PostRecord: @retroactive FetchableRecord, @retroactive TableRecord {
    public static let databaseTableName = "posts"
}

extension UserSummary: @retroactive FetchableRecord {}
