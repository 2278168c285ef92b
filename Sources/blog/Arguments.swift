import ArgumentParser
import BlogClient
import BlogWire

/// Checks of the arguments with BlogCore's field rules, as usage errors.
enum Arguments {
    static func checkUsername(_ name: String) throws {
        do {
            _ = try Username(name)
        } catch {
            throw ValidationError("bad username '\(name)': \(InvalidArgument.field(error))")
        }
    }

    static func checkTitle(_ title: String) throws {
        do {
            _ = try Request.posting(user: "x", title: title, content: "")
        } catch {
            guard case .invalidArgument(let problem) = error else { throw error }
            throw ValidationError("bad title: \(problem)")
        }
    }
}
