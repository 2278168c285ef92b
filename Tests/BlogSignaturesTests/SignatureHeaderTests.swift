import BlogSignatures
import Foundation
import Testing

@Suite struct SignatureHeaderTests {
    @Test func parsesMastodonsForm() throws {
        let header = try SignatureHeader.parse(
            #"keyId="https://m.example/users/bob#main-key",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="AAEC""#)
        #expect(header.keyID == "https://m.example/users/bob#main-key")
        #expect(header.algorithm == "rsa-sha256")
        #expect(header.headers == ["(request-target)", "host", "date", "digest"])
        #expect(header.signature == [0, 1, 2])
        #expect(header.created == nil && header.expires == nil)
    }

    @Test func parsesSpacesCaseCreatedExpiresAndTheAuthorizationForm() throws {
        let value = #"keyId="k", Algorithm="HS2019" , created=1402170695, expires=1402170699.5, headers="(Request-Target) (created) Host", signature="AAEC", unknown="x""#
        let header = try SignatureHeader.parse(value)
        #expect(header.algorithm == "hs2019")
        #expect(header.created == 1_402_170_695 && header.expires == 1_402_170_699)
        #expect(header.headers == ["(request-target)", "(created)", "host"])
        let found = try SignatureHeader.find(in: [("Authorization", "Signature " + value)])
        #expect(found == header)
        #expect(try SignatureHeader.find(in: [("signature", value), ("Authorization", "Bearer x")]) == header)
    }

    @Test func headersDefaultToDate() throws {
        #expect(try SignatureHeader.parse(#"keyId="k",signature="AAEC""#).headers == ["date"])
    }

    @Test func quotedValuesKeepEscapesAndCommas() throws {
        #expect(try SignatureHeader.parse(#"keyId="a,b\"c",signature="AAEC""#).keyID == #"a,b"c"#)
    }

    @Test func refusesHostileOrBrokenHeaders() {
        let long = #"keyId=""# + String(repeating: "k", count: 8 * 1024) + #"",signature="AAEC""#
        #expect(throws: SignatureError.headerTooLong(long.utf8.count)) { try SignatureHeader.parse(long) }
        let many = (0..<21).map { "h\($0)" }.joined(separator: " ")
        #expect(throws: SignatureError.tooManyHeaders(21)) {
            try SignatureHeader.parse(#"keyId="k",headers="\#(many)",signature="AAEC""#)
        }
        #expect(throws: SignatureError.missingParameter("keyId")) { try SignatureHeader.parse(#"signature="AAEC""#) }
        #expect(throws: SignatureError.missingParameter("keyId")) { try SignatureHeader.parse(#"keyId="",signature="AAEC""#) }
        #expect(throws: SignatureError.missingParameter("signature")) { try SignatureHeader.parse(#"keyId="k""#) }
        #expect(throws: SignatureError.noSignature) { try SignatureHeader.find(in: [("Authorization", "Bearer abc")]) }
        #expect(throws: SignatureError.noSignature) { try SignatureHeader.find(in: []) }
        for broken in [#"keyId="k",signature="AAEC""#.replacingOccurrences(of: ",", with: " "),
                       #"keyId="k,signature="AAEC""#, #"keyId="k",keyId="j",signature="AAEC""#,
                       #"keyId="k";signature="AAEC""#, #"="k""#, #"keyId,signature="AAEC""#,
                       #"keyId="k",signature="***""#, #"keyId="k",created=-5,signature="AAEC""#,
                       #"keyId="k",headers="",signature="AAEC""#, "keyId=\"k\u{1}\",signature=\"AAEC\""] {
            #expect(throws: SignatureError.self, "\(broken)") { try SignatureHeader.parse(broken) }
        }
    }

    @Test func writesWhatItReads() throws {
        let header = SignatureHeader(keyID: "https://b.example/ap/alice#main-key", algorithm: "rsa-sha256",
                                     headers: ["(request-target)", "host", "date"], signature: Array(0..<200))
        #expect(try SignatureHeader.parse(header.value) == header)
    }
}
