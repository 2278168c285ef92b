import BlogSignatures
import Foundation
import Testing
import _CryptoExtras

@Suite struct ActorKeyPairTests {
    @Test func generatesA2048BitPairAndSaysHowLong() throws {
        let clock = ContinuousClock()
        let started = clock.now
        let pair = try ActorKeyPair.generate()
        let took = clock.now - started
        #expect(pair.privateKey.keySizeInBits == 2048)
        // Printed for the record (docs/activitypub-signatures.md quotes it); not asserted.
        print("RSA 2048 key generation: \(took)")
    }

    @Test func pemGoesOutAndComesBack() throws {
        let pair = TestKeys.alice
        #expect(pair.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(pair.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let again = try ActorKeyPair(privateKeyPEM: pair.privateKeyPEM)
        #expect(again.publicKeyPEM == pair.publicKeyPEM)
        let publicKey = try ActorKeyPair.publicKey(pem: pair.publicKeyPEM)
        #expect(publicKey.derRepresentation == pair.publicKey.derRepresentation)
    }

    @Test func readsPKCS1PublicAndPrivateKeys() throws {
        let pair = TestKeys.alice
        let pkcs1 = pair.publicKey.pkcs1PEMRepresentation
        #expect(pkcs1.hasPrefix("-----BEGIN RSA PUBLIC KEY-----"))
        #expect(try ActorKeyPair.publicKey(pem: pkcs1).derRepresentation == pair.publicKey.derRepresentation)
        let pkcs1Private = pair.privateKey.pemRepresentation
        #expect(pkcs1Private.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        #expect(try ActorKeyPair(privateKeyPEM: pkcs1Private).publicKeyPEM == pair.publicKeyPEM)
    }

    @Test func refusesWhatIsNoKey() {
        #expect(throws: SignatureError.self) { try ActorKeyPair.publicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----") }
        #expect(throws: SignatureError.self) { try ActorKeyPair.publicKey(pem: String(repeating: "x", count: 10_000)) }
        #expect(throws: SignatureError.self) { try ActorKeyPair(privateKeyPEM: "") }
    }

    @Test func refusesKeysUnder2048Bits() throws {
        let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        #expect(throws: SignatureError.self) { try ActorKeyPair.publicKey(pem: small.publicKey.pemRepresentation) }
    }
}
