import Foundation
import BlogModel
import BlogPages

/// The admin list of users, as a table for people or JSON for scripts.
public enum UserListing {
    /// A readable table, one user a line, aligned.
    public static func table(_ users: [UserSummary]) -> String {
        let header = ["NAME", "REGISTERED (UTC)", "POSTS", "LAST POST (UTC)"]
        let rows = users.map { user in
            [user.name + (user.suspended ? " (suspended)" : ""), stamp(user.registeredAt), String(user.postCount),
             user.lastPostAt.map(stamp) ?? "-"]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                // Counts read best right-aligned.
                return column == 2 ? pad + cell : cell + pad
            }
            .joined(separator: "  ")
            .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var lines = [line(header)] + rows.map(line)
        lines.append("\(users.count) user\(users.count == 1 ? "" : "s")")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A JSON array of `{name, registered_at, posts, last_post_at, suspended}`, dates
    /// in ISO 8601 UTC and `null` for no post yet.
    public static func json(_ users: [UserSummary]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(PostDate.machine(date))
        }
        let data = (try? encoder.encode(users.map(Entry.init))) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private struct Entry: Encodable {
        var summary: UserSummary
        init(_ summary: UserSummary) { self.summary = summary }

        enum CodingKeys: String, CodingKey {
            case name, posts, suspended
            case registeredAt = "registered_at"
            case lastPostAt = "last_post_at"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(summary.name, forKey: .name)
            try container.encode(summary.registeredAt, forKey: .registeredAt)
            try container.encode(summary.postCount, forKey: .posts)
            // Explicit null: every entry has the same keys.
            try container.encode(summary.lastPostAt, forKey: .lastPostAt)
            try container.encode(summary.suspended, forKey: .suspended)
        }
    }

    private static func stamp(_ date: Date) -> String {
        PostDate.machine(date).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
    }
}
