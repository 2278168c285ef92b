import Foundation
import BlogModel
import BlogPages

/// The admin list of a user's access tokens (`blogd tokens`): what each is,
/// never its secret, which nothing keeps.
public enum TokenListing {
    /// A readable table, one token a line, aligned, newest first.
    public static func table(_ tokens: [AccessToken]) -> String {
        let header = ["ID", "KIND", "SCOPES", "LABEL", "CREATED (UTC)", "EXPIRES (UTC)"]
        let rows = tokens.map { token in
            [String(token.id), token.kind.rawValue, token.scopes.isEmpty ? "-" : token.scopes, shown(token.label),
             stamp(token.createdAt), token.expiresAt.map(stamp) ?? "never"]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                // Ids read best right-aligned.
                return column == 0 ? pad + cell : cell + pad
            }
            .joined(separator: "  ")
            .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var lines = [line(header)] + rows.map(line)
        lines.append("\(tokens.count) token\(tokens.count == 1 ? "" : "s")")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A label on one line: it may come from a client (its id), and a
    /// newline or escape in it must not forge lines of the listing or
    /// drive the terminal. Empty shows as "-".
    static func shown(_ label: String) -> String {
        guard !label.isEmpty else { return "-" }
        return String(String.UnicodeScalarView(label.unicodeScalars.map {
            $0.properties.generalCategory == .control ? "?" : $0
        }))
    }

    private static func stamp(_ date: Date) -> String {
        PostDate.machine(date).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
    }
}
