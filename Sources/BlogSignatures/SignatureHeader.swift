import Foundation

/// A parsed draft-cavage-12 signature: the `Signature` header's value, or
/// the parameters of `Authorization: Signature …`.
///
///     keyId="https://a.example/u/bob#main-key",algorithm="rsa-sha256",
///     headers="(request-target) host date digest",signature="Base64=="
///
/// Parsing is bounded: at most `maxLength` bytes, `maxHeaders` listed
/// headers, each parameter once; anything but `name=value` pairs
/// (quoted strings, or bare numbers for `created`/`expires`) is refused.
/// Unknown parameters are ignored, as the draft says.
public struct SignatureHeader: Sendable, Equatable {
    public static let maxLength = 8 * 1024
    public static let maxHeaders = 20
    /// Longer than an RSA 8192 signature: anything longer is not one.
    static let maxSignatureBytes = 1024

    public var keyID: String
    /// As sent, lowercased; nil when the header names none.
    public var algorithm: String?
    /// Lowercased, in the order signed; `["date"]` when the header names none.
    public var headers: [String]
    public var signature: [UInt8]
    public var created: Int?
    public var expires: Int?

    public init(keyID: String, algorithm: String?, headers: [String], signature: [UInt8],
                created: Int? = nil, expires: Int? = nil) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.headers = headers
        self.signature = signature
        self.created = created
        self.expires = expires
    }

    /// The signature of a request: its `Signature` header, else its
    /// `Authorization` header when that uses the `Signature` scheme.
    public static func find(in headers: [(String, String)]) throws(SignatureError) -> SignatureHeader {
        if let value = headers.first(where: { $0.0.lowercased() == "signature" })?.1 {
            return try parse(value)
        }
        if let value = headers.first(where: { $0.0.lowercased() == "authorization" })?.1 {
            let scheme = value.prefix { $0 != " " }
            if scheme.lowercased() == "signature" {
                return try parse(String(value.dropFirst(scheme.count)))
            }
        }
        throw .noSignature
    }

    /// Parses a `Signature` header's value.
    public static func parse(_ value: String) throws(SignatureError) -> SignatureHeader {
        guard value.utf8.count <= maxLength else { throw .headerTooLong(value.utf8.count) }
        let parameters = try ParameterList.parse(Array(value.utf8))
        guard let keyID = parameters["keyid"], !keyID.isEmpty else { throw .missingParameter("keyId") }
        guard let encoded = parameters["signature"], !encoded.isEmpty else { throw .missingParameter("signature") }
        guard let signature = Data(base64Encoded: encoded), signature.count <= maxSignatureBytes else {
            throw .malformed("the signature is not base64")
        }
        var headers = ["date"]
        if let list = parameters["headers"] {
            headers = list.split(separator: " ", omittingEmptySubsequences: true).map { $0.lowercased() }
            guard headers.count <= maxHeaders else { throw .tooManyHeaders(headers.count) }
            guard !headers.isEmpty else { throw .malformed("the headers list is empty") }
        }
        return SignatureHeader(keyID: keyID, algorithm: parameters["algorithm"]?.lowercased(), headers: headers,
                               signature: Array(signature),
                               created: try number(parameters["created"], "created"),
                               expires: try number(parameters["expires"], "expires"))
    }

    /// The header's value, as a signer sends it.
    public var value: String {
        var parts = ["keyId=\"\(keyID)\""]
        if let algorithm { parts.append("algorithm=\"\(algorithm)\"") }
        if let created { parts.append("created=\(created)") }
        if let expires { parts.append("expires=\(expires)") }
        parts.append("headers=\"\(headers.joined(separator: " "))\"")
        parts.append("signature=\"\(Data(signature).base64EncodedString())\"")
        return parts.joined(separator: ",")
    }

    private static func number(_ text: String?, _ name: String) throws(SignatureError) -> Int? {
        guard let text else { return nil }
        // Digits only (the draft allows a fraction, which we drop):
        // no sign, no spaces, at most 12 digits (well past year 9999).
        let whole = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard !whole.isEmpty, whole.count <= 12, whole.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Int(whole) else {
            throw .malformed("\(name) is not a number")
        }
        return value
    }
}

/// `name=value` pairs separated by commas: the auth-param syntax of
/// RFC 7235 as the draft uses it.
enum ParameterList {
    /// Names lowercased; each at most once.
    static func parse(_ bytes: [UInt8]) throws(SignatureError) -> [String: String] {
        var result: [String: String] = [:]
        var index = 0
        func skipSpaces() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        }
        skipSpaces()
        while index < bytes.count {
            let nameStart = index
            while index < bytes.count, isTokenByte(bytes[index]) { index += 1 }
            guard index > nameStart else { throw .malformed("a parameter has no name at byte \(index)") }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            skipSpaces()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                throw .malformed("\(name) has no value")
            }
            index += 1
            skipSpaces()
            var value: [UInt8] = []
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                var closed = false
                while index < bytes.count {
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: "\"") { closed = true; break }
                    if byte == UInt8(ascii: "\\") {
                        guard index < bytes.count else { break }
                        value.append(bytes[index])
                        index += 1
                    } else if byte < 0x20 && byte != 0x09 || byte == 0x7F {
                        throw .malformed("\(name) holds a control character")
                    } else {
                        value.append(byte)
                    }
                }
                guard closed else { throw .malformed("\(name)'s quoted value is not closed") }
            } else {
                let start = index
                while index < bytes.count, isTokenByte(bytes[index]) || bytes[index] == UInt8(ascii: ".") { index += 1 }
                guard index > start else { throw .malformed("\(name) has no value") }
                value = Array(bytes[start..<index])
            }
            guard result[name] == nil else { throw .malformed("\(name) is given twice") }
            result[name] = String(decoding: value, as: UTF8.self)
            skipSpaces()
            guard index < bytes.count else { break }
            guard bytes[index] == UInt8(ascii: ",") else { throw .malformed("expected a comma at byte \(index)") }
            index += 1
            skipSpaces()
        }
        return result
    }

    /// RFC 7230's tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
