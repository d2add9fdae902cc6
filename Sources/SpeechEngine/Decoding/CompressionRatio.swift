import CBLAS

/// The gzip-style compression ratio Whisper uses to spot repetitive output: UTF-8 length over zlib
/// (default level) compressed length.
enum CompressionRatio {
    static func of(_ text: String) -> Double {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return 0 }
        var length = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&out, &length, &bytes, uLong(bytes.count), Z_DEFAULT_COMPRESSION)
        guard status == Z_OK, length > 0 else { return 0 }
        return Double(bytes.count) / Double(length)
    }
}
