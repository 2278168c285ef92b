import BlogModel

/// What a post coming back from the trash changes on its blog's pages.
extension UserPages {
    /// Writes the pages a restore of `post` (as stored again) changed: what
    /// an edit writes (its group's page, the main page, its own page, the
    /// feed and map), the pages of the posts beside it (they link to it
    /// again), any archive page the plan newly needs (a group coming back
    /// may move an older one off the main page), its response pages (its
    /// responses came back with it), and its tombstone goes.
    package func restore(_ user: UserRecord, post: PostStub) throws {
        try rewrite(user, after: post, deleted: false)
        let title = try renderings([post], of: user)[0].title
        for page in try responsePages(user, postID: post.id, title: title) { try store.write(page.bytes, file: page.file) }
        let blog = try identity(user)
        let plan = layout.plan(groups: PageGroup.of(try storage.newestPosts(ofUserID: user.id)).reversed())
        // Archives beyond the last plan's were removed when they left it:
        // the ones missing from the newest down are the new ones.
        var number = plan.newestArchive
        while number > 0 && !store.exists(file: PageRenderer.archiveFile(user: user.name, number: number)) {
            try store.write(try archivePage(user, blog, number: number),
                            file: PageRenderer.archiveFile(user: user.name, number: number))
            number -= 1
        }
        let around = try storage.adjacentPosts(to: post, ofUserID: user.id)
        for neighbour in [around.older, around.newer].compactMap({ $0 }) {
            let links = try storage.adjacentPosts(to: neighbour, ofUserID: user.id)
            let rendered = try renderings([neighbour], of: user)[0]
            // Its own responses stay on it.
            try store.write(PageRenderer.postPage(blog: blog, post: rendered.meta(id: neighbour.id), fragment: rendered.fragment,
                                                  older: links.older?.id, newer: links.newer?.id, head: head,
                                                  responses: try responses(user, postID: neighbour.id).block),
                            file: PageRenderer.postFile(user: user.name, id: neighbour.id))
        }
        store.remove(file: PageRenderer.goneFile(user: user.name, id: post.id))
    }
}
