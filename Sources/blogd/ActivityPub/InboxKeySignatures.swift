import BlogApp
import BlogCore
import BlogLimits
import BlogSignatures
import BlogWeb
import Foundation

/// The inbox's signature check: BlogSignatures' draft-cavage verifier,
/// the signer's key fetched from its `keyId`'s document with a GET signed
/// by the blog whose inbox was posted to (`SignedGets`), at most
/// `hostBudget` fetches per key host. The cheap checks (date, digest,
/// covered headers) come before any fetch. When the key's document is
/// the actor itself (Mastodon's `#main-key`, bovine's `#serverKey`), its
/// `inbox` comes with the signer, so a Follow needs no second fetch.
///
/// The smallest adapter: no key cache (each signed POST fetches its key
/// once; the host budget bounds that). BlogSignatures' `InboxVerifier`
/// with its `KeyFetcher` (cache, coalescing, per-address budgets) is meant
/// to take its place.
struct InboxKeySignatures: InboxSignatureChecking {
    let gets: SignedGets
    let hostBudget: AddressBudget
    var verifier = HTTPSignatureVerifier()
    var clock: @Sendable () -> Moment = WebmentionEndpoint.monotonic

    init(gets: SignedGets, hostBudget: AddressBudget = AddressBudget(perSecond: 1, burst: 30, capacity: 10_000)) {
        self.gets = gets
        self.hostBudget = hostBudget
    }

    func signer(of request: WebRequest) -> Result<InboxSigner, InboxSignatureRefusal> {
        let signed = SignedRequest(method: request.method.rawValue, path: request.path, query: request.query,
                                   headers: request.headers.map { ($0.name.rawName, $0.value) }, body: request.body)
        let signature: SignatureHeader
        do {
            signature = try SignatureHeader.find(in: signed.headers)
            try verifier.check(signed, signature, now: Date())
        } catch {
            return .failure(InboxSignatureRefusal("The signature was not accepted: \(error)."))
        }
        guard var parts = URLComponents(string: signature.keyID), let host = parts.host?.lowercased(), !host.isEmpty,
              let scheme = parts.scheme?.lowercased(), scheme == "https" || scheme == "http",
              signature.keyID.utf8.count <= 2048 else {
            return .failure(InboxSignatureRefusal("The signature's keyId is not an http(s) URL."))
        }
        guard hostBudget.take(for: Self.hostKey(host), at: clock()) else {
            return .failure(InboxSignatureRefusal("Too many key fetches from \(host): try again later.", isTemporary: true))
        }
        parts.fragment = nil
        let document = parts.string ?? signature.keyID
        let answer: HTTPAnswer
        switch gets.get(document, asBlog: Self.blog(ofInboxPath: request.path)) {
        case .success(let got) where got.status == 200: answer = got
        case .success(let got):
            return .failure(InboxSignatureRefusal("The signer's key could not be fetched (\(got.status)).",
                                                  isTemporary: got.status >= 500 || got.status == 429))
        case .failure(let error):
            return .failure(InboxSignatureRefusal("The signer's key could not be fetched: \(error).", isTemporary: true))
        }
        guard let (owner, pem) = Self.key(signature.keyID, in: answer.body),
              URL(string: owner)?.host?.lowercased() == host else {
            return .failure(InboxSignatureRefusal("The signer's key document names no usable key \(signature.keyID)."))
        }
        do {
            try verifier.verify(signed, signature, key: try ActorKeyPair.publicKey(pem: pem))
        } catch {
            return .failure(InboxSignatureRefusal("The signature was not accepted: \(error)."))
        }
        let profile = InboxActorProfile.read(answer.body, actor: owner)
        return .success(InboxSigner(actor: owner, inbox: profile?.inbox, sharedInbox: profile?.sharedInbox,
                                    name: profile?.name, url: profile?.url))
    }

    /// The owner and PEM of key `keyID` in an actor document (`publicKey`
    /// one or a list) or a key document of its own.
    static func key(_ keyID: String, in body: [UInt8]) -> (owner: String, pem: String)? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        var candidates: [[String: Any]] = []
        if let one = object["publicKey"] as? [String: Any] { candidates.append(one) }
        if let list = object["publicKey"] as? [Any] { candidates += list.compactMap { $0 as? [String: Any] } }
        if object["publicKeyPem"] != nil { candidates.append(object) }
        guard let key = candidates.first(where: { $0["id"] as? String == keyID }),
              let owner = key["owner"] as? String, let pem = key["publicKeyPem"] as? String else { return nil }
        return (owner, pem)
    }

    /// NAME of `/ap/NAME/inbox`; nil for the shared inbox (its key fetches go unsigned).
    static func blog(ofInboxPath path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "ap", parts[3] == "inbox", !parts[2].isEmpty else { return nil }
        return String(parts[2])
    }

    /// A host as a budget key (the budget keys addresses: a hash in an IPv6 /64's place).
    static func hostKey(_ host: String) -> AddressKey {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in host.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return AddressKey(ipBytes: (0..<8).map { UInt8(truncatingIfNeeded: hash >> ($0 * 8)) } + [UInt8](repeating: 0, count: 8))
    }
}
