import GRDB

extension Schema {
    /// Search (v15): an FTS5 index of the posts' titles and texts, its
    /// content read from `posts` (external content: the text is stored
    /// once), kept in step by triggers on every insert, edit and deletion
    /// (the trash's moves and a user's cascade too), built for the posts
    /// already there. The default tokenizer (unicode61: words of letters
    /// and digits, case and diacritics folded) is what `SearchQuery`'s
    /// terms are made of.
    static let search = """
        CREATE VIRTUAL TABLE posts_search USING fts5(title, content, content='posts', content_rowid='id');
        CREATE TRIGGER posts_search_insert AFTER INSERT ON posts BEGIN
            INSERT INTO posts_search (rowid, title, content) VALUES (new.id, new.title, new.content);
        END;
        CREATE TRIGGER posts_search_delete AFTER DELETE ON posts BEGIN
            INSERT INTO posts_search (posts_search, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
        END;
        CREATE TRIGGER posts_search_update AFTER UPDATE OF title, content ON posts BEGIN
            INSERT INTO posts_search (posts_search, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
            INSERT INTO posts_search (rowid, title, content) VALUES (new.id, new.title, new.content);
        END;
        INSERT INTO posts_search (posts_search) VALUES ('rebuild');
        """
}
