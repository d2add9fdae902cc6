import Foundation

/// Reads a 16 kHz mono 16-bit PCM WAV file as Float32 samples scaled by 1/32768 (what faster-whisper's
/// reference script does), so both engines see identical samples.
enum WAVReader {
    static func samples(_ url: URL) throws -> [Float] {
        let data = try Data(contentsOf: url)
        func u32(_ at: Int) -> UInt32 { data[at..<at + 4].enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * $1.offset) } }
        func u16(_ at: Int) -> UInt16 { UInt16(data[at]) | UInt16(data[at + 1]) << 8 }
        guard data.count >= 12, data.prefix(4) == Data("RIFF".utf8), data[8..<12] == Data("WAVE".utf8) else {
            throw BenchError("\(url.path) is not a WAV file")
        }
        var offset = 12
        var format: (channels: UInt16, rate: UInt32, bits: UInt16)?
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = Int(u32(offset + 4))
            let body = offset + 8
            if id == "fmt " {
                format = (u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                guard let format, format.channels == 1, format.rate == 16000, format.bits == 16 else {
                    throw BenchError("\(url.path): expected 16 kHz mono 16-bit PCM")
                }
                let end = min(body + size, data.count)
                return data[body..<end].withUnsafeBytes { raw in
                    (0..<(raw.count / 2)).map { Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32768 }
                }
            }
            offset = body + size + (size & 1)
        }
        throw BenchError("\(url.path) has no data chunk")
    }
}
