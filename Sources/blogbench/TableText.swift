import Foundation

/// What the reports share to print tables and numbers.
enum TableText {
    /// Rows of cells as lines: the first column left-aligned, the others
    /// (numbers) right-aligned, two spaces apart.
    static func aligned(_ rows: [[String]]) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
    }

    /// `value` to `places` decimal places, for JSON that reads well.
    static func rounded(_ value: Double, places: Int = 3) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}
