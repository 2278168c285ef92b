extension PostgresSchema {
    /// Migration 13: search. Each post's title and text as a `tsvector`
    /// ('simple': words in lower case, no stemming, as SQLite's index
    /// keeps them), a stored generated column the database keeps in step
    /// with every insert and edit (made for the posts already there when
    /// it is added), and its GIN index.
    static let search = """
        -- Migration 13.
        -- Search: each post's title and text as a tsvector ('simple':
        -- words in lower case, no stemming), kept by the database, and
        -- its GIN index.
        ALTER TABLE posts ADD COLUMN search tsvector
            GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, title || ' ' || content)) STORED;
        CREATE INDEX posts_search ON posts USING gin (search);
        """
}
