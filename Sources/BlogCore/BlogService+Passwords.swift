import BlogWire
import Foundation
import BlogModel

/// A new password, from the web client's settings (the old one checked
/// first, as a login) or from the admin (`blogd passwd`).
extension BlogService {
    /// Sets `name`'s password and ends every way in the old one gave:
    /// the user's blog-port login leases (in the database and in this
    /// process) and web sessions, in the same commit as the password.
    /// Micropub tokens stay (see `BlogStorage.updatePassword`). The
    /// password follows the rules of `register`.
    public func setPassword(_ name: String, to password: String) throws(ModerationError) {
        let user: Username
        do { user = try Username(name) } catch { throw .noSuchUser(name) }
        guard (try? FieldRules.password(password)) != nil else { throw .badPassword }
        let record: UserRecord?
        do { record = try storage.user(named: user.value) } catch { throw .failed("\(error)") }
        guard let record else { throw .noSuchUser(name) }
        let hash: String
        do { hash = try hasher.hash(password) } catch { throw .failed("\(error)") }
        do {
            try storage.updatePassword(userID: record.id, passwordHash: hash)
        } catch .unknownUser {
            throw .noSuchUser(name)
        } catch {
            throw .failed("\(error)")
        }
        leases.forget(user)
        users.forget(record.name)
    }
}
