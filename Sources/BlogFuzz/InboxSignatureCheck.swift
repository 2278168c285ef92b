import BlogSignatures

/// The `inbox` target's second half: the bytes as the two RFC 9421
/// headers an inbox POST carries (`Signature-Input`, then after the first
/// line break `Signature`). Parsing never crashes; a signature it returns
/// keeps its bounds, and its `@signature-params` value parses back to the
/// same members.
func checkInboxSignature(_ data: [UInt8]) {
    let text = String(decoding: data, as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let input = String(parts[0])
    let signatureValue = parts.count > 1 ? String(parts[1]) : ""
    _ = try? StructuredFields.dictionary(text)
    guard let signature = try? MessageSignature.find(in: [("Signature-Input", input), ("Signature", signatureValue)]) else {
        return
    }
    precondition(signature.components.count <= MessageSignature.maxComponents, "too many components")
    precondition(!signature.signature.isEmpty && signature.signature.count <= 1024, "a signature out of bounds")
    precondition(!signature.keyID.isEmpty, "a signature without a key id")
    guard let again = try? StructuredFields.dictionary("x=" + signature.parameters), again.count == 1,
          case .innerList(let items, _) = again[0].member else {
        preconditionFailure("the signature's parameters do not parse back: \(signature.parameters.prefix(80))")
    }
    let names = items.compactMap { item -> String? in
        if case .string(let name) = item.value { return name }
        return nil
    }
    precondition(names == signature.components, "the parameters' components differ")
}
