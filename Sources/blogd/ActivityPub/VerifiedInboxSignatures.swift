import BlogApp
import BlogCore
import BlogSignatures
import BlogWeb

/// The inbox's signature check through BlogSignatures' `InboxVerifier`
/// (draft-cavage-12, the signer's key fetched within `KeyFetcher`'s
/// bounds and kept): the request as it arrived, verified on the request's
/// thread, waiting at most `waitSeconds`. A key that cannot be fetched
/// for now (too many fetches under way, the host or the address over its
/// budget) is a temporary refusal (`503`); everything else `401`.
/// (Drafted by the inbox's helper.)
struct VerifiedInboxSignatures: InboxSignatureChecking {
    let verifier: InboxVerifier
    var waitSeconds: Double = 10
    /// The base URL's scheme: what an RFC 9421 signature's `@target-uri` was
    /// signed with, whatever the socket's (a TLS proxy in front).
    var scheme = "https"

    func signer(of request: WebRequest) -> Result<InboxSigner, InboxSignatureRefusal> {
        let signed = SignedRequest(method: request.method.rawValue, path: request.path, query: request.query,
                                   headers: request.headers.map { ($0.name.rawName, $0.value) }, body: request.body,
                                   scheme: scheme)
        switch verifier.verifyWaiting(signed, peerAddress: request.peerAddress, within: waitSeconds) {
        case .success(let signer):
            return .success(InboxSigner(actor: signer.actorID))
        case .failure(.key(.busy)), .failure(.key(.overBudget(_))):
            return .failure(InboxSignatureRefusal("The signer's key cannot be fetched now: try again later.",
                                                  isTemporary: true))
        case .failure(let error):
            return .failure(InboxSignatureRefusal("The signature was not accepted: \(error)."))
        }
    }
}
