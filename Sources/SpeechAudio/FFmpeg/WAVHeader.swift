import Foundation

/// The frame count a RIFF/WAVE header declares, read from the file itself: FFmpeg caps a WAV's duration to
/// the bytes present, which hides truncation. Nil when the header leaves the size open (streamed WAVs write
/// 0 or 0xFFFFFFFF) or cannot be read.
package func wavDeclaredFrames(_ url: URL) -> Int64? {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
    defer { try? handle.close() }
    guard let head = try? handle.read(upToCount: 1 << 16), head.count >= 12,
          head.prefix(4) == Data("RIFF".utf8), head[8..<12] == Data("WAVE".utf8)
    else { return nil }
    func uint32(_ offset: Int) -> UInt32 {
        head[offset..<offset + 4].enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }
    func uint16(_ offset: Int) -> UInt32 { UInt32(head[offset]) | UInt32(head[offset + 1]) << 8 }
    var offset = 12
    var blockAlign: UInt32 = 0
    while offset + 8 <= head.count {
        let id = String(decoding: head[offset..<offset + 4], as: UTF8.self)
        let size = uint32(offset + 4)
        // The block alignment is the fmt chunk's 16-bit field at byte 12 of its body (bytes 20–21 from its id).
        if id == "fmt ", offset + 22 <= head.count {
            blockAlign = uint16(offset + 20)
        } else if id == "data" {
            guard blockAlign > 0, size != 0, size != UInt32.max else { return nil }
            return Int64(size / blockAlign)
        }
        offset += 8 + Int(size) + Int(size & 1)
    }
    return nil
}
