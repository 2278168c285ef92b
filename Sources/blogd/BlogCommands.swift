import ArgumentParser
import BlogCore
import BlogWire
import Foundation

// The admin's blog settings commands: `blogd blog show NAME`, `blogd blog
// set NAME --title …`. A change is one commit and the blog's pages are
// rewritten under its page lock, which a running server takes as well
// (see Moderation.swift), so it works while `blogd serve` runs.

struct BlogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blog",
        abstract: "Show or change a blog's settings: title, description, the author's display name and photo.",
        subcommands: [ShowBlog.self, SetBlog.self])
}

struct ShowBlog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a blog's settings, one `key: value` line each (empty when unset).")

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String

    func run() async throws {
        try await moderate(data, "blog") { service throws(BlogService.ModerationError) in
            BlogSettingsListing.text(try service.blogSettings(of: name))
        }
    }
}

struct SetBlog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a blog's settings and rewrite its pages; options not given stay, an empty value clears.",
        discussion: """
            Each is one line of plain text, shown escaped: --title (at most \(BlogSettings.maxTitleCharacters) characters), \
            --description (\(BlogSettings.maxDescriptionCharacters)), --author-name (\(BlogSettings.maxAuthorNameCharacters)); \
            --author-photo is a path in the public folder to a .jpg or .png (photos/NAME.jpg).
            """)

    @OptionGroup var data: DataOptions
    @Argument(help: "The user's name (any case).")
    var name: String
    @Option(help: ArgumentHelp("The blog's title (default: the user's name).", valueName: "text"))
    var title: String?
    @Option(help: ArgumentHelp("A line under the title, and the feed's subtitle.", valueName: "text"))
    var description: String?
    @Option(help: ArgumentHelp("The author's name as shown (default: the user's name).", valueName: "text"))
    var authorName: String?
    @Option(help: ArgumentHelp("The author's photo: a path in the public folder.", valueName: "path"))
    var authorPhoto: String?

    func run() async throws {
        guard title != nil || description != nil || authorName != nil || authorPhoto != nil else {
            throw fail("give at least one of --title, --description, --author-name, --author-photo")
        }
        try await moderate(data, "blog") { service throws(BlogService.ModerationError) in
            let current = try service.blogSettings(of: name)
            let changed: BlogSettings
            do {
                changed = try current.updating(title: title, description: description, authorName: authorName,
                                               authorPhoto: authorPhoto)
            } catch {
                throw .failed("\(error)")
            }
            try service.setBlogSettings(changed, of: name)
            return "changed the settings of \(name)'s blog; its pages are rewritten"
        }
    }
}

/// `blogd blog show`'s listing.
enum BlogSettingsListing {
    static func text(_ settings: BlogSettings) -> String {
        """
        title: \(settings.title ?? "")
        description: \(settings.description ?? "")
        author-name: \(settings.authorName ?? "")
        author-photo: \(settings.authorPhoto ?? "")
        """
    }
}
