import BlogWire
import Foundation
import BlogModel

/// A blog's own settings (title, description, the author's name and photo),
/// from the web client's settings page or the admin (`blogd blog set`).
extension BlogService {
    /// The settings of `name`'s blog (`.unset` when never set).
    public func blogSettings(of name: String) throws(ModerationError) -> BlogSettings {
        do {
            guard let user = try storage.user(named: name) else { throw ModerationError.noSuchUser(name) }
            return try storage.blogSettings(ofUserID: user.id)
        } catch let error as ModerationError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    /// Replaces the settings of `name`'s blog, then rewrites every page of
    /// the blog that shows them (each page's head and heading, each post's
    /// page, the feed), under the blog's page lock, as the admin's other
    /// changes are: the settings are committed (durable) before any page
    /// shows them, and no page is written from the settings before. The
    /// cost grows with the blog's posts (a post's page each, about a second
    /// per 10,000); a post does not wait for it, but posts to the same
    /// blog do. Should the pages fail, the settings stay stored and the
    /// next start's page check (or `blogd rebuild`) writes them.
    public func setBlogSettings(_ settings: BlogSettings, of name: String) throws(ModerationError) {
        let user: UserRecord?
        do { user = try storage.user(named: name) } catch { throw .failed("\(error)") }
        guard let user else { throw .noSuchUser(name) }
        do {
            try RequestDeadline.$end.withValue(nil) {
                _ = try storage.withPageLock(userID: user.id) { () throws -> Bool in
                    try storage.setBlogSettings(settings, ofUserID: user.id, at: now())
                    return try userPages.repair(user)
                }
            }
        } catch StorageError.unknownUser {
            throw .noSuchUser(name)
        } catch {
            throw .failed("\(error)")
        }
    }
}
