import BlogSignatures
import Foundation

/// Key pairs made once per test process: a 2048-bit key takes a good
/// fraction of a second, and every suite needs two.
enum TestKeys {
    static let alice: ActorKeyPair = try! ActorKeyPair.generate()
    static let mallory: ActorKeyPair = try! ActorKeyPair.generate()

    /// 2027-01-15T08:00:00Z, the test clock's start.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let keyID = "https://blog.example/ap/alice#main-key"
    static let inbox = "https://remote.example/users/bob/inbox"
    static let body = Array(#"{"type":"Follow","actor":"https://blog.example/ap/alice"}"#.utf8)

    /// A POST to `inbox` as our signer makes it, as the receiver reads it.
    static func signedPost(body: [UInt8] = body, key: ActorKeyPair = alice, at time: Date = now) throws -> SignedRequest {
        let headers = try HTTPSignatureSigner.sign(method: "POST", url: inbox, body: body, keyID: keyID,
                                                   privateKey: key.privateKey, now: time)
        return SignedRequest(method: "POST", path: "/users/bob/inbox",
                             headers: headers + [("Content-Type", "application/activity+json")], body: body)
    }
}

extension SignedRequest {
    /// The request with `name` set to `value` (every copy replaced; nil removes it).
    func setting(_ name: String, _ value: String?) -> SignedRequest {
        var copy = self
        copy.headers.removeAll { $0.0.lowercased() == name.lowercased() }
        if let value { copy.headers.append((name, value)) }
        return copy
    }
}
