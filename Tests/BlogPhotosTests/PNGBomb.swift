/// A PNG of `width` x `height` RGB pixels in a few dozen bytes: a real
/// signature, IHDR and IEND with correct CRCs, and an IDAT of a tiny
/// valid zlib stream (a stored block of zero bytes: black rows, as many
/// as fit in 16 bytes). Its header claims width x height x 3 bytes of
/// pixels, which a decoder that trusted it would allocate before finding
/// the data short. A 1 x 1 one is a whole, valid PNG.
func pngBomb(width: UInt32, height: UInt32) -> [UInt8] {
    func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }
    let zeros = [UInt8](repeating: 0, count: min(16, Int(height) * (1 + 3 * Int(width))))
    // zlib: header 78 01, one final stored block (LEN, ~LEN), Adler-32.
    let length = UInt16(zeros.count)
    let zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
        + zeros + be32(adler32(zeros))
    let ihdr = be32(width) + be32(height) + [8, 2, 0, 0, 0]  // 8 bits, RGB, deflate, no filter, no interlace
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", zlib) + chunk("IEND", [])
}

/// CRC-32 as PNG (and zlib's crc32) computes it.
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    return ~crc
}

func adler32(_ bytes: [UInt8]) -> UInt32 {
    var a: UInt32 = 1, b: UInt32 = 0
    for byte in bytes {
        a = (a + UInt32(byte)) % 65_521
        b = (b + a) % 65_521
    }
    return b << 16 | a
}
