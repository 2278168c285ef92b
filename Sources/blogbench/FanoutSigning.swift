import BlogSignatures
import Foundation

/// What one delivery's signature costs on this machine now, the way
/// blogd's delivery worker signs (`SignatureSigner`: the blog's PEM
/// parsed, then draft-cavage `rsa-sha256` over a Digest of the body):
/// the arithmetic behind the fan-out's bound.
enum FanoutSigning {
    /// Microseconds per signature, with the PEM parsed each time and with
    /// a parsed key, over `count` signatures of a `bytes`-byte body.
    static func measure(count: Int = 200, bytes: Int = 1_500) -> (withParse: Double, signOnly: Double)? {
        guard let pair = try? ActorKeyPair.generate() else { return nil }
        let pem = pair.privateKeyPEM
        let body = Array(repeating: UInt8(ascii: "x"), count: bytes)
        let url = "http://127.1.0.1:40000/inbox"
        let keyID = "http://127.0.0.1/ap/bench#main-key"
        func time(_ work: () throws -> Void) -> Double? {
            let start = monotonicNanoseconds()
            for _ in 0..<count { guard (try? work()) != nil else { return nil } }
            return Double(monotonicNanoseconds() - start) / 1000 / Double(count)
        }
        guard let signOnly = time({
            _ = try HTTPSignatureSigner.sign(method: "POST", url: url, body: body, keyID: keyID,
                                             privateKey: pair.privateKey, now: Date())
        }), let withParse = time({
            let parsed = try ActorKeyPair(privateKeyPEM: pem)
            _ = try HTTPSignatureSigner.sign(method: "POST", url: url, body: body, keyID: keyID,
                                             privateKey: parsed.privateKey, now: Date())
        }) else { return nil }
        return (withParse, signOnly)
    }
}
