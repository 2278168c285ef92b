-- The blogd database: users and their posts.
-- The program creates exactly this schema through its first migration
-- (Sources/BlogCore/Storage/Schema.swift); a test proves the two agree.
-- Times are UTC text, 'YYYY-MM-DD HH:MM:SS.SSS'.

CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL COLLATE NOCASE UNIQUE
                          CHECK (length(name) BETWEEN 1 AND 32),
    password_hash TEXT    NOT NULL CHECK (password_hash <> ''),
    created_at    TEXT    NOT NULL
);

CREATE TABLE posts (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    title      TEXT    NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
    content    TEXT    NOT NULL,
    created_at TEXT    NOT NULL
);

CREATE INDEX posts_by_user ON posts(user_id, id);
