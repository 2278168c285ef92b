/// Full-text search over posts' titles and texts (SQLite FTS5,
/// PostgreSQL `tsvector`), kept in step with the posts by the store.
public protocol SearchStorage: Sendable {
    /// The posts holding every term of `query`, of `userID` or of every
    /// blog when nil: the newest `SearchQuery.candidates` of them ranked
    /// best first (bm25, `ts_rank`; newest first among equals), skipping
    /// `offset`, at most `limit`, with their authors. Ranking only the
    /// newest matches bounds what a common word costs.
    /// The terms are matched as words, each quoted: nothing of the
    /// user's text reaches a query language.
    func searchPosts(_ query: SearchQuery, ofUserID userID: Int64?, offset: Int,
                     limit: Int) throws(StorageError) -> [AuthoredPost]
}

/// What a reader searches for, checked: 1 to `maxTerms` words (runs of
/// letters and digits; everything else separates them), each at most
/// `maxTermLength` characters, from at most `maxBytes` bytes of text, in
/// lower case. Words are what both backends' indexes hold, so a term is
/// never an operator, a prefix, a column name or a quote.
public struct SearchQuery: Sendable, Equatable {
    public static let maxBytes = 200
    public static let maxTerms = 8
    public static let maxTermLength = 64
    /// The newest matches a search ranks; results past them are not given.
    public static let candidates = 1_000

    public let terms: [String]

    /// Why a text is no query.
    public enum Problem: Error, Sendable, Equatable {
        case empty
        case tooLong
        case tooManyTerms
        case termTooLong
    }

    public init(_ text: String) throws(Problem) {
        guard text.utf8.count <= Self.maxBytes else { throw .tooLong }
        var terms: [String] = []
        var current = ""
        func flush() throws(Problem) {
            guard !current.isEmpty else { return }
            guard current.count <= Self.maxTermLength else { throw .termTooLong }
            if !terms.contains(current) { terms.append(current) }
            current = ""
        }
        for scalar in text.lowercased().unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.unicodeScalars.append(scalar)
            } else {
                try flush()
            }
        }
        try flush()
        guard !terms.isEmpty else { throw .empty }
        guard terms.count <= Self.maxTerms else { throw .tooManyTerms }
        self.terms = terms
    }

    /// The terms as an FTS5 query: each a quoted string (an implicit AND),
    /// so none is read as syntax.
    public var fts5: String {
        terms.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " ")
    }
}
