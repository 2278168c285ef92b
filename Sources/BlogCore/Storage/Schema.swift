import GRDB

/// The database schema; `schema.sql` at the top of the repository is the
/// same text, and `SchemaTests` fails if the two ever drift apart.
enum Schema {
    static let version1 = """
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
        """

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: version1)
        }
        return migrator
    }
}
