/// The byte-level BPE alphabet of GPT-2 and Whisper: every byte 0...255 has a printable Unicode
/// character standing for it in the vocabulary (printable Latin-1 bytes stand for themselves, the
/// other 68 bytes are shifted to U+0100 and above, so a space is written `Ġ`).
enum ByteLevelAlphabet {
    /// The character (as a Unicode scalar value) that stands for each byte.
    static let scalarForByte: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 256)
        var shifted: UInt32 = 256
        for byte in 0..<256 {
            let printable = (0x21...0x7E).contains(byte) || (0xA1...0xAC).contains(byte) || (0xAE...0xFF).contains(byte)
            if printable {
                table[byte] = UInt32(byte)
            } else {
                table[byte] = shifted
                shifted += 1
            }
        }
        return table
    }()

    /// The byte each alphabet character stands for, by scalar value (nil for characters outside it).
    static let byteForScalar: [UInt32: UInt8] = {
        var map: [UInt32: UInt8] = [:]
        for (byte, scalar) in scalarForByte.enumerated() { map[scalar] = UInt8(byte) }
        return map
    }()

    /// The bytes a vocabulary entry written in the alphabet stands for; nil if it has a foreign character.
    static func bytes(of token: String) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(token.unicodeScalars.count)
        for scalar in token.unicodeScalars {
            guard let byte = byteForScalar[scalar.value] else { return nil }
            result.append(byte)
        }
        return result
    }

    /// The alphabet spelling of raw bytes (how they appear as a vocabulary key).
    static func spelling(of bytes: some Sequence<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(scalarForByte[Int(byte)])!) }
        return String(scalars)
    }
}
