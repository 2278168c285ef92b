import BlogModel
import GRDB

extension Schema {
    /// Tags (v14): a post keeps the tags given beside its text in
    /// `categories` (space separated, normalized; its hashtags are read
    /// from its text), and `post_tags` holds every tag of every post, one
    /// row each, written in the post's own transaction: by tag (the tag
    /// pages, across blogs), by blog and tag, and by post (its edits, and
    /// the cascade of its deletion).
    static let tags = """
        ALTER TABLE posts ADD COLUMN categories TEXT NOT NULL DEFAULT '';
        ALTER TABLE trashed_posts ADD COLUMN categories TEXT NOT NULL DEFAULT '';
        CREATE TABLE post_tags (
            post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
            tag     TEXT    NOT NULL CHECK (length(tag) BETWEEN 1 AND 256),
            user_id INTEGER NOT NULL,
            PRIMARY KEY (post_id, tag)
        ) WITHOUT ROWID;
        CREATE INDEX post_tags_by_tag ON post_tags(tag, post_id);
        CREATE INDEX post_tags_by_blog ON post_tags(user_id, tag, post_id);
        """

    /// The hashtags of the posts stored before there were tags.
    static func tagExistingPosts(_ db: Database) throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT id, user_id, content FROM posts WHERE content LIKE '%#%'")
        while let row = try rows.next() {
            try SQLiteStore.writeTags(db, postID: row[0], userID: row[1], tags: Hashtags.tags(in: row[2] as String))
        }
    }
}
