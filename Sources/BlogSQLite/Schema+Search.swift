import GRDB

extension Schema {
    /// Search (v15): an FTS5 index of the posts' titles and texts and
    /// their blog (a token `u` and the user's id, so that one blog's
    /// search intersects the blog's short list with the words' instead of
    /// walking past every other blog's posts), its content read through
    /// the view `posts_search_source` (external content: the text is
    /// stored once, in `posts`), kept in step by triggers on every insert,
    /// edit and deletion (the trash's moves and a user's cascade too),
    /// built for the posts already there. The default tokenizer
    /// (unicode61: words of letters and digits, case and diacritics
    /// folded) is what `SearchQuery`'s terms are made of.
    static let search = """
        CREATE VIEW posts_search_source AS SELECT id, title, content, 'u' || user_id AS blog FROM posts;
        CREATE VIRTUAL TABLE posts_search USING fts5(title, content, blog, content='posts_search_source', content_rowid='id');
        CREATE TRIGGER posts_search_insert AFTER INSERT ON posts BEGIN
            INSERT INTO posts_search (rowid, title, content, blog) VALUES (new.id, new.title, new.content, 'u' || new.user_id);
        END;
        CREATE TRIGGER posts_search_delete AFTER DELETE ON posts BEGIN
            INSERT INTO posts_search (posts_search, rowid, title, content, blog)
            VALUES ('delete', old.id, old.title, old.content, 'u' || old.user_id);
        END;
        CREATE TRIGGER posts_search_update AFTER UPDATE OF title, content, user_id ON posts BEGIN
            INSERT INTO posts_search (posts_search, rowid, title, content, blog)
            VALUES ('delete', old.id, old.title, old.content, 'u' || old.user_id);
            INSERT INTO posts_search (rowid, title, content, blog) VALUES (new.id, new.title, new.content, 'u' || new.user_id);
        END;
        INSERT INTO posts_search (posts_search) VALUES ('rebuild');
        """
}
