import BlogModel

extension AccessTokens {
    /// What a bearer token may do (Micropub's scopes).
    public enum Scope: String, Sendable, CaseIterable {
        case create, update, delete, media

        /// A scope word that is none of these.
        public struct Unknown: Error, Equatable, Sendable, CustomStringConvertible {
            public let word: String
            public var description: String {
                "unknown scope \"\(word)\" (known: \(Scope.allCases.map(\.rawValue).joined(separator: " ")))"
            }
        }

        /// The scopes of a space-separated list ("create update"); empty
        /// for an empty list. An unknown word is refused, not ignored: a
        /// misspelt scope would otherwise make a token that silently lacks
        /// what it was made for.
        public static func parse(_ text: String) throws(Unknown) -> Set<Scope> {
            var scopes: Set<Scope> = []
            for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                guard let scope = Scope(rawValue: String(word)) else { throw Unknown(word: String(word)) }
                scopes.insert(scope)
            }
            return scopes
        }

        /// `scopes` as stored: space-separated, always in the same order.
        public static func text(_ scopes: Set<Scope>) -> String {
            allCases.filter(scopes.contains).map(\.rawValue).joined(separator: " ")
        }
    }
}

extension AccessToken {
    /// Whether the token carries `scope`. A session carries none: what it
    /// may do is what its user may.
    public func allows(_ scope: AccessTokens.Scope) -> Bool {
        scopes.split(separator: " ").contains { $0 == scope.rawValue }
    }
}
