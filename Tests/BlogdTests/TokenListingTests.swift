import Foundation
import Testing
import BlogTestSupport
import BlogModel
@testable import blogd
@testable import BlogCore

@Suite("TokenListing")
struct TokenListingTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func tableAlignsAndShowsNoSecret() {
        let tokens = [
            AccessToken(id: 12, userID: 1, kind: .session, scopes: "", label: "", createdAt: Self.t0,
                        expiresAt: Self.t0.addingTimeInterval(86_400)),
            AccessToken(id: 3, userID: 1, kind: .bearer, scopes: "create media", label: "Quill", createdAt: Self.t0,
                        expiresAt: nil),
        ]
        #expect(TokenListing.table(tokens) == """
            ID  KIND     SCOPES        LABEL  CREATED (UTC)        EXPIRES (UTC)
            12  session  -             -      2027-01-15 08:00:00  2027-01-16 08:00:00
             3  bearer   create media  Quill  2027-01-15 08:00:00  never
            2 tokens

            """)
        #expect(TokenListing.table([]) == "ID  KIND  SCOPES  LABEL  CREATED (UTC)  EXPIRES (UTC)\n0 tokens\n")
    }

    /// A label comes from a client: it can forge no line, nor drive the terminal.
    @Test func controlCharactersInLabelsAreShownAsQuestionMarks() {
        #expect(TokenListing.shown("a\nb\r\tc\u{1B}[31md\u{7F}") == "a?b??c?[31md?")
        #expect(TokenListing.shown("ünï 😀") == "ünï 😀")
        #expect(TokenListing.shown("") == "-")
    }
}
