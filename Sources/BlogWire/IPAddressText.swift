/// Strict parsing of numeric IP addresses as text, without the C library:
/// the wire codec has no dependencies, and a PROXY v1 line names its
/// addresses this way.
///
/// Strict on purpose: an address a proxy writes is machine-made, so
/// anything unusual (leading zeros, which some parsers read as octal,
/// zone ids, brackets, spaces) is more likely an attack than a typo.
package enum IPAddressText {
    /// `a.b.c.d`: four decimal numbers 0–255 without leading zeros (as
    /// glibc's `inet_pton`). Returns the 4 bytes, or nil.
    package static func ipv4<S: Collection<UInt8>>(_ text: S) -> [UInt8]? {
        var bytes: [UInt8] = []
        var value = 0
        var digits = 0
        var first: UInt8 = 0
        for char in text {
            if char == UInt8(ascii: ".") {
                guard digits > 0, bytes.count < 3 else { return nil }
                bytes.append(UInt8(value))
                value = 0
                digits = 0
            } else if let digit = decimal(char) {
                if digits == 0 { first = char }
                // "0" alone is fine; "01" is not.
                guard !(digits > 0 && first == UInt8(ascii: "0")) else { return nil }
                value = value * 10 + digit
                digits += 1
                guard value <= 255 else { return nil }
            } else {
                return nil
            }
        }
        guard digits > 0, bytes.count == 3 else { return nil }
        bytes.append(UInt8(value))
        return bytes
    }

    /// The textual IPv6 forms of RFC 4291 section 2.2: eight groups of 1–4
    /// hex digits, one `::` standing for one or more zero groups, and an
    /// optional dotted IPv4 address as the last 32 bits. Returns the 16
    /// bytes, or nil.
    package static func ipv6<S: Collection<UInt8>>(_ text: S) -> [UInt8]? {
        let chars = Array(text)
        guard chars.count >= 2, chars.count <= 45 else { return nil }
        var head: [UInt16] = []      // groups before "::"
        var tail: [UInt16] = []      // groups after it
        var compressed = false
        var index = 0
        // A leading "::" is the one place a group may be empty at the start.
        if chars[0] == UInt8(ascii: ":") {
            guard chars[1] == UInt8(ascii: ":") else { return nil }
            compressed = true
            index = 2
        }
        while index < chars.count {
            // A group: hex digits up to ':' or the end; or a dotted IPv4 tail.
            var end = index
            while end < chars.count, chars[end] != UInt8(ascii: ":") { end += 1 }
            let field = chars[index..<end]
            if field.contains(UInt8(ascii: ".")) {
                // Only as the very last field, and it takes two groups.
                guard end == chars.count, let v4 = ipv4(field) else { return nil }
                let groups = [UInt16(v4[0]) << 8 | UInt16(v4[1]), UInt16(v4[2]) << 8 | UInt16(v4[3])]
                if compressed { tail += groups } else { head += groups }
                index = end
                break
            }
            guard (1...4).contains(field.count) else { return nil }
            var group: UInt16 = 0
            for char in field {
                guard let digit = hex(char) else { return nil }
                group = group << 4 | UInt16(digit)
            }
            if compressed { tail.append(group) } else { head.append(group) }
            guard head.count + tail.count <= 8 else { return nil }
            index = end
            guard index < chars.count else { break }
            // At a ':'. Another right after it is the "::".
            index += 1
            if index < chars.count, chars[index] == UInt8(ascii: ":") {
                guard !compressed else { return nil }
                compressed = true
                index += 1
            } else if index == chars.count {
                return nil // a trailing single ':'
            }
        }
        let count = head.count + tail.count
        if compressed {
            guard count <= 7 else { return nil }
        } else {
            guard count == 8 else { return nil }
        }
        let groups = head + [UInt16](repeating: 0, count: 8 - count) + tail
        return groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    private static func decimal(_ char: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(char) ? Int(char - UInt8(ascii: "0")) : nil
    }

    private static func hex(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): char - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
