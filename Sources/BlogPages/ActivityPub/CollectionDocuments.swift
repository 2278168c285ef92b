/// A blog's collections: the outbox (its posts as `Create` activities,
/// newest first, `pageSize` a page) and the counts of its followers and
/// of whom it follows (the lists themselves are not shown).
///
///     CollectionDocuments.outbox(user: "alice", totalItems: 45, urls: urls)   // pages 1...3
public enum CollectionDocuments {
    /// Activities on one page of the outbox.
    public static let pageSize = 20

    /// How many pages `totalItems` fill; 1 for none (an empty first page).
    public static func pageCount(_ totalItems: Int) -> Int {
        max(1, (totalItems + pageSize - 1) / pageSize)
    }

    /// The outbox: its size and its first and last pages.
    public static func outbox(user: String, totalItems: Int, urls: ActivityURLs) -> ActivityJSON {
        ActivityContext.document(.object([
            ("id", .string(urls.outbox(user))),
            ("type", "OrderedCollection"),
            ("totalItems", .int(totalItems)),
            ("first", .string(urls.outbox(user, page: 1))),
            ("last", .string(urls.outbox(user, page: pageCount(totalItems)))),
        ]))
    }

    /// Page `number` of the outbox, holding `notes` (newest first) as
    /// `Create`s; `next` goes to older posts.
    public static func outboxPage(user: String, number: Int, totalItems: Int, notes: [NoteDocument],
                                  urls: ActivityURLs) -> ActivityJSON {
        var fields: [(String, ActivityJSON)] = [
            ("id", .string(urls.outbox(user, page: number))),
            ("type", "OrderedCollectionPage"),
            ("partOf", .string(urls.outbox(user))),
            ("totalItems", .int(totalItems)),
        ]
        if number < pageCount(totalItems) { fields.append(("next", .string(urls.outbox(user, page: number + 1)))) }
        if number > 1 { fields.append(("prev", .string(urls.outbox(user, page: number - 1)))) }
        fields.append(("orderedItems", .array(notes.map { ActivityDocuments.createItem(note: $0) })))
        return ActivityContext.document(.object(fields))
    }

    /// The followers collection: how many, not who.
    public static func followers(user: String, count: Int, urls: ActivityURLs) -> ActivityJSON {
        counted(urls.followers(user), count)
    }

    /// The following collection: a blog follows no one.
    public static func following(user: String, urls: ActivityURLs) -> ActivityJSON {
        counted(urls.following(user), 0)
    }

    private static func counted(_ id: String, _ count: Int) -> ActivityJSON {
        ActivityContext.document(.object([("id", .string(id)), ("type", "OrderedCollection"), ("totalItems", .int(count))]))
    }
}
