import Testing

@testable import BlogWire

/// The rules of a blog's settings, checked once in `BlogSettings`: bounded
/// one-line text, a photo that is a path in the public folder, whitespace
/// around trimmed, empty meaning unset.
@Suite("BlogSettings")
struct BlogSettingsTests {
    @Test func emptyOrWhitespaceIsUnsetAndTextIsTrimmed() throws {
        #expect(try BlogSettings(title: "", description: "   ", authorName: "\t", authorPhoto: " ") == .unset)
        let settings = try BlogSettings(title: "  Notes  ", description: " Walks ", authorName: "Alice A.",
                                        authorPhoto: " photos/me.jpg ")
        #expect(settings.title == "Notes" && settings.description == "Walks")
        #expect(settings.authorName == "Alice A." && settings.authorPhoto == "photos/me.jpg")
        #expect(!settings.isUnset && BlogSettings.unset.isUnset)
    }

    @Test func markupIsPlainText() throws {
        // Kept as typed: the pages escape it, nothing here strips or trusts it.
        let settings = try BlogSettings(title: "<script>alert(1)</script>", description: "\"quoted\" & 'single'")
        #expect(settings.title == "<script>alert(1)</script>")
        #expect(settings.description == "\"quoted\" & 'single'")
    }

    @Test func lengthsCountCodePoints() throws {
        let title = String(repeating: "e\u{301}", count: BlogSettings.maxTitleCharacters / 2)
        #expect(try BlogSettings(title: title).title == title)
        #expect(throws: BlogSettingsError.tooLong(.title, max: BlogSettings.maxTitleCharacters)) {
            try BlogSettings(title: title + "x")
        }
        #expect(throws: BlogSettingsError.tooLong(.description, max: BlogSettings.maxDescriptionCharacters)) {
            try BlogSettings(description: String(repeating: "d", count: BlogSettings.maxDescriptionCharacters + 1))
        }
        #expect(throws: BlogSettingsError.tooLong(.authorName, max: BlogSettings.maxAuthorNameCharacters)) {
            try BlogSettings(authorName: String(repeating: "😀", count: BlogSettings.maxAuthorNameCharacters + 1))
        }
        #expect(throws: BlogSettingsError.tooLong(.authorPhoto, max: BlogSettings.maxPhotoPathBytes)) {
            try BlogSettings(authorPhoto: String(repeating: "a", count: BlogSettings.maxPhotoPathBytes) + ".jpg")
        }
    }

    @Test(arguments: ["Two\nlines", "tab\there", "nul\u{0}", "esc\u{1B}[31m", "del\u{7F}", "cr\rx"])
    func oneLineWithoutControls(_ text: String) {
        #expect(throws: BlogSettingsError.controlCharacters(.title)) { try BlogSettings(title: text) }
        #expect(throws: BlogSettingsError.controlCharacters(.description)) { try BlogSettings(description: text) }
        #expect(throws: BlogSettingsError.controlCharacters(.authorName)) { try BlogSettings(authorName: text) }
    }

    @Test(arguments: ["photos/0123456789abcdef0123456789abcdef.jpg", "me.png", "alice/avatar_2-x.PNG", "a/b/c.jpg"])
    func photoPathsInThePublicFolder(_ path: String) throws {
        #expect(try BlogSettings(authorPhoto: path).authorPhoto == path)
    }

    @Test(arguments: ["/photos/me.jpg", "https://evil.example/me.jpg", "javascript:alert(1)//.jpg", "../secret.jpg",
                      "photos/../../etc.jpg", ".hidden.jpg", "photos//me.jpg", "photos/me.jpg?x=1", "photos/me jpg.jpg",
                      "photos/me.svg", "photos/me.html", "photos/\"onerror=x.jpg", "photos/me.jpg/", "photos/é.jpg", "data:x.png"])
    func otherPhotosAreRefused(_ path: String) {
        #expect(throws: BlogSettingsError.badPhotoPath) { try BlogSettings(authorPhoto: path) }
    }

    @Test func updatingKeepsWhatIsNotGivenAndEmptyClears() throws {
        let settings = try BlogSettings(title: "Notes", description: "Walks", authorName: "Alice")
        let changed = try settings.updating(description: "Bread", authorName: "")
        #expect(changed == (try BlogSettings(title: "Notes", description: "Bread")))
        #expect(throws: BlogSettingsError.badPhotoPath) { try settings.updating(authorPhoto: "/x.jpg") }
    }

    @Test func errorsSayWhatToDo() {
        #expect(BlogSettingsError.tooLong(.title, max: 100).description == "the title is longer than 100 characters")
        #expect(BlogSettingsError.controlCharacters(.authorName).description
                == "the author name must be one line, without control characters")
        #expect(BlogSettingsError.badPhotoPath.description.contains("photos/NAME.jpg"))
    }
}
