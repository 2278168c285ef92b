import BlogWire

/// The `proxy` target: a PROXY header (v1 or v2) before the blog port's
/// first frame. Parsing never crashes, never takes more than the caps,
/// and is incremental: every shorter prefix of a header needs more, and
/// bytes after a header or after an invalid start change nothing.
func checkProxyHeader(_ data: [UInt8]) {
    let result = ProxyHeader.parse(data)
    let signature = ProxyHeader.signature(in: data)
    switch result {
    case .needMore:
        precondition(data.count < ProxyHeader.maxV2Bytes, "still undecided past the cap")
        precondition(signature != .absent, "undecided without a signature")
    case .header(let header, let consumed):
        precondition(signature == .present, "a header without its signature")
        precondition(consumed > 0 && consumed <= data.count, "consumed \(consumed) of \(data.count)")
        let cap = header.version == .v1 ? ProxyHeader.maxV1Bytes : ProxyHeader.maxV2Bytes
        precondition(consumed <= cap, "a header over its cap")
        precondition(ProxyHeader.parse(Array(data[..<consumed])) == result, "the header alone parses differently")
        for end in 0..<consumed {
            let prefix = ProxyHeader.parse(Array(data[..<end]))
            precondition(prefix == .needMore, "a prefix of a header was decided: \(prefix)")
        }
        for endpoint in [header.source, header.destination].compactMap({ $0 }) {
            precondition(endpoint.address.count == 4 || endpoint.address.count == 16, "an address of \(endpoint.address.count) bytes")
            precondition((0...65_535).contains(endpoint.port), "port \(endpoint.port)")
        }
        precondition((header.source == nil) == (header.destination == nil), "one end without the other")
    case .invalid:
        precondition(ProxyHeader.parse(data + [0x0D, 0x0A, 0x00]) == result, "more bytes undid a refusal")
    }
}
