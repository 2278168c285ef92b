import BlogModel

/// A post's responses (received Webmentions, approved) on its page and
/// its response pages, rendered from the database like every other page.
extension UserPages {
    /// The block under post `postID` and how many responses it has.
    func responses(_ user: UserRecord, postID: Int64) throws -> (block: [UInt8], total: Int) {
        let counts = try storage.shownWebmentionCounts(postID: postID)
        let total = counts.values.reduce(0, +)
        guard total > 0 else { return ([], 0) }
        let newest = try storage.shownWebmentions(postID: postID, offset: 0, limit: ResponsesRenderer.onPostPage)
        return (ResponsesRenderer.block(user: user.name, postID: postID, counts: counts, newest: newest), total)
    }

    /// Every response page of post `postID` (none when its responses fit
    /// on its own page).
    func responsePages(_ user: UserRecord, postID: Int64, title: String) throws -> [(file: String, bytes: [UInt8])] {
        let total = try storage.shownWebmentionCounts(postID: postID).values.reduce(0, +)
        let pages = ResponsesRenderer.pageCount(total: total)
        guard pages > 0 else { return [] }
        return try (1...pages).map { number in
            let slice = try storage.shownWebmentions(postID: postID, offset: (number - 1) * ResponsesRenderer.perPage,
                                                     limit: ResponsesRenderer.perPage)
            return (ResponsesRenderer.file(user: user.name, postID: postID, page: number),
                    ResponsesRenderer.page(user: user.name, postID: postID, title: title, page: number, pages: pages,
                                           responses: slice, head: head))
        }
    }

    /// Writes post `postID`'s page and response pages again after its
    /// responses changed (one approved, updated or removed), and removes
    /// response pages it no longer needs. Call under the blog's page lock.
    package func writeResponses(_ user: UserRecord, postID: Int64) throws {
        guard let post = try storage.posts(ids: [postID]).first, post.userID == user.id else { return }
        let around = try storage.adjacentPosts(to: post.stub, ofUserID: user.id)
        let rendered = try renderings([post.stub], of: user)[0]
        // The blog as every other writer of this page sees it (its settings,
        // its canonical head), or the start-up check would find it differs.
        let page = PageRenderer.postPage(blog: try identity(user), post: rendered.meta(id: postID),
                                         fragment: rendered.fragment, older: around.older?.id, newer: around.newer?.id,
                                         head: head, responses: try responses(user, postID: postID).block)
        try store.write(page, file: PageRenderer.postFile(user: user.name, id: postID))
        let pages = try responsePages(user, postID: postID, title: rendered.title)
        for page in pages { try store.write(page.bytes, file: page.file) }
        removeResponsePages(of: user, postID: postID, after: pages.count)
    }

    /// Removes post `postID`'s response pages numbered past `kept`.
    func removeResponsePages(of user: UserRecord, postID: Int64, after kept: Int = 0) {
        var stale = kept + 1
        while store.exists(file: ResponsesRenderer.file(user: user.name, postID: postID, page: stale)) {
            store.remove(file: ResponsesRenderer.file(user: user.name, postID: postID, page: stale))
            stale += 1
        }
    }
}
