import BlogModel
import Foundation
import PostgresNIO

/// Received Webmentions (`webmentions`, migration 12). Times travel as
/// whole milliseconds (`Milliseconds`), as elsewhere. A trashed post's
/// (`post_id` NULL, `trashed_post_id` set) are read, verified, approved
/// and removed by none of these: they wait, hidden, for the post's
/// restore or purge.
extension PostgresStore {
    private static let webmentionColumns = """
        id, user_id, post_id, source, target, status, approved, \(Milliseconds.select("received_at")), attempts,
        \(Milliseconds.select("next_attempt_at")), \(Milliseconds.select("verified_at")),
        kind, author_name, author_url, author_photo, title, content, origin, actor_id
        """

    private static func webmention(_ row: PostgresRow) throws -> Webmention {
        let cells = row.makeRandomAccess()
        let (id, userID, postID) = (try cells[0].decode(Int64.self), try cells[1].decode(Int64.self),
                                    try cells[2].decode(Int64.self))
        let (source, target, status) = (try cells[3].decode(String.self), try cells[4].decode(String.self),
                                        try cells[5].decode(String.self))
        let (approved, received, attempts) = (try cells[6].decode(Bool.self), try cells[7].decode(Int64.self),
                                              try cells[8].decode(Int32.self))
        let (next, verified) = (try cells[9].decode(Int64.self), try cells[10].decode(Int64?.self))
        let (kind, name, url, photo, title, text) = try Self.contentColumns(row)
        guard let parsedStatus = Webmention.Status(rawValue: status), let parsedKind = Webmention.Kind(rawValue: kind) else {
            throw StorageError.failed("a webmention of unknown status \(status) or kind \(kind)")
        }
        return Webmention(id: id, userID: userID, postID: postID, source: source, target: target, status: parsedStatus,
                          approved: approved, receivedAt: Milliseconds.date(received), attempts: Int(attempts),
                          nextAttemptAt: Milliseconds.date(next), verifiedAt: verified.map(Milliseconds.date),
                          content: WebmentionContent(kind: parsedKind, authorName: name, authorURL: url,
                                                     authorPhoto: photo, title: title, text: text),
                          origin: Webmention.Origin(rawValue: try cells[17].decode(String.self)) ?? .webmention,
                          actorID: try cells[18].decode(String?.self))
    }

    /// The last six columns (a tuple decode takes at most so many at once).
    private static func contentColumns(_ row: PostgresRow) throws -> (String, String, String, String, String, String) {
        let cells = row.makeRandomAccess()
        func text(_ index: Int) throws -> String { try cells[index].decode(String.self) }
        return (try text(11), try text(12), try text(13), try text(14), try text(15), try text(16))
    }

    public func queueWebmention(userID: Int64, postID: Int64, source: String, target: String,
                                at date: Date) throws(StorageError) -> Webmention {
        let at = Milliseconds.of(date)
        // A post (or user) that is gone fails the foreign key: `.unknownUser`.
        let found = try rows("""
            INSERT INTO webmentions (user_id, post_id, source, target, status, received_at, next_attempt_at)
            VALUES (\(userID), \(postID), \(source), \(target), 'queued',
                    timestamptz 'epoch' + \(at) * interval '1 millisecond',
                    timestamptz 'epoch' + \(at) * interval '1 millisecond')
            ON CONFLICT (post_id, source) DO UPDATE SET
                status = 'queued', target = excluded.target, received_at = excluded.received_at,
                attempts = 0, next_attempt_at = excluded.next_attempt_at,
                origin = 'webmention', actor_id = NULL, actor_host = NULL
            RETURNING \(unescaped: Self.webmentionColumns)
            """, Self.webmention)
        guard let first = found.first else { throw .failed("the insert returned no row") }
        return first
    }

    public func dueWebmentions(at date: Date, limit: Int) throws(StorageError) -> [Webmention] {
        try rows("""
            SELECT \(unescaped: Self.webmentionColumns) FROM webmentions
            WHERE status = 'queued' AND next_attempt_at <= timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond'
              AND post_id IS NOT NULL
            ORDER BY next_attempt_at, id LIMIT \(limit)
            """, Self.webmention)
    }

    public func storeVerification(id: Int64, content: WebmentionContent, at date: Date) throws(StorageError) -> Webmention? {
        let content = content.bounded
        return try rows("""
            UPDATE webmentions SET status = 'verified', attempts = 0,
                verified_at = timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond',
                kind = \(content.kind.rawValue), author_name = \(content.authorName), author_url = \(content.authorURL),
                author_photo = \(content.authorPhoto), title = \(content.title), content = \(content.text)
            WHERE id = \(id) AND post_id IS NOT NULL RETURNING \(unescaped: Self.webmentionColumns)
            """, Self.webmention).first
    }

    public func deferVerification(id: Int64, attempts: Int, retryAt: Date) throws(StorageError) {
        try execute("""
            UPDATE webmentions SET attempts = \(attempts),
                next_attempt_at = timestamptz 'epoch' + \(Milliseconds.of(retryAt)) * interval '1 millisecond'
            WHERE id = \(id)
            """)
    }

    public func approveWebmention(id: Int64, ofUserID userID: Int64?) throws(StorageError) -> Webmention? {
        try rows("""
            UPDATE webmentions SET approved = true WHERE id = \(id) AND (\(userID)::bigint IS NULL OR user_id = \(userID)::bigint)
              AND post_id IS NOT NULL
            RETURNING \(unescaped: Self.webmentionColumns)
            """, Self.webmention).first
    }

    public func deleteWebmention(id: Int64, ofUserID userID: Int64?) throws(StorageError) -> Webmention? {
        try rows("""
            DELETE FROM webmentions WHERE id = \(id) AND (\(userID)::bigint IS NULL OR user_id = \(userID)::bigint)
              AND post_id IS NOT NULL
            RETURNING \(unescaped: Self.webmentionColumns)
            """, Self.webmention).first
    }

    public func webmention(id: Int64) throws(StorageError) -> Webmention? {
        try rows("SELECT \(unescaped: Self.webmentionColumns) FROM webmentions WHERE id = \(id) AND post_id IS NOT NULL", Self.webmention).first
    }

    public func webmentions(ofUserID userID: Int64?, approved: Bool?, limit: Int) throws(StorageError) -> [Webmention] {
        try rows("""
            SELECT \(unescaped: Self.webmentionColumns) FROM webmentions
            WHERE (\(userID)::bigint IS NULL OR user_id = \(userID)::bigint)
              AND (\(approved)::boolean IS NULL OR approved = \(approved)::boolean) AND post_id IS NOT NULL
            ORDER BY id DESC LIMIT \(limit)
            """, Self.webmention)
    }

    public func shownWebmentions(postID: Int64, offset: Int, limit: Int) throws(StorageError) -> [Webmention] {
        try rows("""
            SELECT \(unescaped: Self.webmentionColumns) FROM webmentions
            WHERE post_id = \(postID) AND approved AND verified_at IS NOT NULL
            ORDER BY id DESC LIMIT \(limit) OFFSET \(offset)
            """, Self.webmention)
    }

    public func shownWebmentionCounts(postID: Int64) throws(StorageError) -> [Webmention.Kind: Int] {
        let pairs = try rows("""
            SELECT kind, COUNT(*) FROM webmentions WHERE post_id = \(postID) AND approved AND verified_at IS NOT NULL
            GROUP BY kind
            """) { try $0.decode((String, Int64).self) }
        var counts: [Webmention.Kind: Int] = [:]
        for (kind, count) in pairs { if let kind = Webmention.Kind(rawValue: kind) { counts[kind] = Int(count) } }
        return counts
    }

    public func unapprovedWebmentionCount(ofUserID userID: Int64) throws(StorageError) -> Int {
        Int(try rows("SELECT COUNT(*) FROM webmentions WHERE user_id = \(userID) AND NOT approved AND post_id IS NOT NULL") {
            try $0.decode(Int64.self)
        }.first ?? 0)
    }

    public func postIDsWithShownWebmentions(ofUserID userID: Int64) throws(StorageError) -> Set<Int64> {
        Set(try rows("""
            SELECT DISTINCT post_id FROM webmentions
            WHERE user_id = \(userID) AND approved AND verified_at IS NOT NULL AND post_id IS NOT NULL
            """) { try $0.decode(Int64.self) })
    }
}
