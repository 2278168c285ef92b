extension PostgresSchema {
    /// Migration 12: tags. A post keeps the tags given beside its text in
    /// `categories` (space separated, normalized; its hashtags are read
    /// from its text), and `post_tags` holds every tag of every post, one
    /// row each, written in the post's own transaction. The posts stored
    /// before get their hashtags here, by the rule of `Hashtags` written
    /// as a regular expression (letters and digits as the database's
    /// locale knows them; a later edit writes them by the rule itself).
    static let tags = """
        -- Migration 12.
        -- Tags: posts.categories keeps the tags given beside a post's
        -- text (space separated, lower case); its text's hashtags are
        -- tags too. post_tags holds every tag of every post, written
        -- with the post, gone with it by cascade.
        ALTER TABLE posts ADD COLUMN categories text NOT NULL DEFAULT '';
        ALTER TABLE trashed_posts ADD COLUMN categories text NOT NULL DEFAULT '';
        CREATE TABLE post_tags (
            post_id bigint NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
            tag     text   NOT NULL CHECK (char_length(tag) BETWEEN 1 AND 256),
            user_id bigint NOT NULL,
            PRIMARY KEY (post_id, tag)
        );
        CREATE INDEX post_tags_by_tag ON post_tags (tag, post_id);
        CREATE INDEX post_tags_by_blog ON post_tags (user_id, tag, post_id);
        INSERT INTO post_tags (post_id, tag, user_id)
        SELECT id, tag, user_id FROM (
            SELECT p.id, p.user_id, t.tag, row_number() OVER (PARTITION BY p.id ORDER BY min(t.n)) AS k
            FROM posts p,
                LATERAL (SELECT lower(rtrim(m[1], '-_')) AS tag, n
                         FROM regexp_matches(p.content, '(?:^|[[:space:]])[([{"'']?#([[:alnum:]_-]+)(?![[:alnum:]_-]|://)', 'g')
                              WITH ORDINALITY AS r(m, n)) t
            WHERE p.content LIKE '%#%' AND t.tag ~ '[[:alpha:]]' AND char_length(t.tag) <= 64
            GROUP BY p.id, p.user_id, t.tag
        ) found WHERE k <= 20;
        """
}
