import Foundation

/// An RFC 9421 HTTP message signature as a request carries it: a member
/// of its `Signature-Input` header (the covered components and the
/// signature's parameters) and the member of its `Signature` header of
/// the same label (the signature's bytes).
///
///     Signature-Input: sig1=("@method" "@target-uri" "content-digest");created=1800000000;keyid="https://m.example/users/bob#main-key";alg="rsa-v1_5-sha256"
///     Signature: sig1=:Base64==:
///
/// Of several signatures, the first listed in `Signature-Input` that has
/// its bytes in `Signature` is taken. Bounds: each header at most
/// `StructuredFields.maxLength` bytes, at most `maxSignatures` labels and
/// `maxComponents` components; a component with parameters (`;sf`,
/// `;key`, `;req`, `;bs`, `@query-param`'s `;name`) is refused, not
/// guessed at.
public struct MessageSignature: Sendable, Equatable {
    public static let maxSignatures = 8
    public static let maxComponents = 20

    public var label: String
    /// The covered components in the order signed: `@method`, `content-digest`, …
    public var components: [String]
    public var keyID: String
    /// As given (`rsa-v1_5-sha256`, `rsa-pss-sha512`); nil when not given.
    public var algorithm: String?
    public var created: Int?
    public var expires: Int?
    public var signature: [UInt8]
    /// The `@signature-params` line's value: the inner list serialized.
    public var parameters: String

    /// Whether the request carries an RFC 9421 signature (a `Signature-Input` header).
    public static func isPresent(in headers: [(String, String)]) -> Bool {
        headers.contains { $0.0.lowercased() == "signature-input" }
    }

    /// The request's first usable RFC 9421 signature.
    public static func find(in headers: [(String, String)]) throws(SignatureError) -> MessageSignature {
        let request = SignedRequest(method: "", path: "", headers: headers)
        guard let input = request.header("signature-input") else { throw .noSignature }
        guard let values = request.header("signature") else { throw .missingHeader("signature") }
        let inputs = try StructuredFields.dictionary(input)
        let signatures = try StructuredFields.dictionary(values)
        guard inputs.count <= maxSignatures, signatures.count <= maxSignatures else {
            throw .malformed("more than \(maxSignatures) signatures")
        }
        for entry in inputs {
            guard let bytes = signatures.first(where: { $0.key == entry.key }) else { continue }
            return try parse(label: entry.key, input: entry.member, signature: bytes.member)
        }
        throw .missingParameter("a Signature member for a Signature-Input label")
    }

    static func parse(label: String, input: StructuredFields.Member,
                      signature: StructuredFields.Member) throws(SignatureError) -> MessageSignature {
        guard case .innerList(let items, let parameters) = input else {
            throw .malformed("\(label) in Signature-Input is not an inner list")
        }
        guard case .item(let item) = signature, case .bytes(let bytes) = item.value else {
            throw .malformed("\(label) in Signature is not a byte sequence")
        }
        guard !bytes.isEmpty, bytes.count <= SignatureHeader.maxSignatureBytes else {
            throw .malformed("\(label)'s signature is \(bytes.count) bytes")
        }
        guard items.count <= maxComponents else { throw .tooManyHeaders(items.count) }
        var components: [String] = []
        for item in items {
            guard case .string(let name) = item.value else { throw .malformed("a component is not a string") }
            guard item.parameters.isEmpty else { throw .malformed("the component \(name) has parameters") }
            guard name == name.lowercased(), !name.isEmpty else { throw .malformed("the component \(name) is not lowercase") }
            guard !components.contains(name) else { throw .malformed("the component \(name) is given twice") }
            components.append(name)
        }
        var found = MessageSignature(label: label, components: components, keyID: "", algorithm: nil, created: nil,
                                     expires: nil, signature: bytes,
                                     parameters: StructuredFields.serialize(innerList: items, parameters: parameters))
        for parameter in parameters {
            switch (parameter.key, parameter.value) {
            case ("keyid", .string(let text)): found.keyID = text
            case ("alg", .string(let text)): found.algorithm = text
            case ("created", .integer(let value)): found.created = value
            case ("expires", .integer(let value)): found.expires = value
            case ("keyid", _), ("alg", _), ("created", _), ("expires", _):
                throw .malformed("the parameter \(parameter.key) has the wrong type")
            default:
                continue  // nonce, tag and others: signed, not checked
            }
        }
        guard !found.keyID.isEmpty else { throw .missingParameter("keyid") }
        return found
    }
}
