import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A RIFF/WAVE file of mono linear PCM at the rate wanted, read without FFmpeg: the samples FFmpeg's decoder and
/// libswresample give for it, bit for bit (integers scaled by 2⁻¹⁵ or 2⁻³¹ as libswresample scales them, floats
/// copied), and the same `AudioSourceInfo`, in a few system calls and without loading FFmpeg's libraries (about 40 ms
/// of every process that does). Anything else (more channels, another rate, compressed or extensible formats, a
/// `data` chunk past the first 64 KiB, an odd-sized chunk before it, RF64) is FFmpeg's: `init` returns nil.
/// Not thread-safe: one owner at a time.
package final class MonoWAVReader {
    package let url: URL
    package let source: AudioSourceInfo
    /// Set at the end of a file cut short, when truncation is tolerated.
    package private(set) var truncation: AudioTruncation?

    private enum Encoding { case int16, int24, int32, float32 }
    private let encoding: Encoding
    private let descriptor: Int32
    private let blockAlign: Int
    private let dataOffset: Int64
    /// Frames between the start of the data and its end (declared, or the end of the file when left open).
    private let dataFrames: Int64
    private var framesRead: Int64 = 0
    private var finished = false
    private let toleratesTruncation: Bool
    private let bytes: UnsafeMutableRawBufferPointer

    /// The header is read from the first 64 KiB; `sampleRate` is the rate wanted (no resampling here).
    package init?(url: URL, sampleRate: Double, toleratingTruncation: Bool) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
              let header = Self.header(descriptor: descriptor),
              header.channels == 1, Double(header.sampleRate) == sampleRate
        else {
            close(descriptor)
            return nil
        }
        self.url = url
        self.descriptor = descriptor
        encoding = header.encoding
        blockAlign = header.blockAlign
        dataOffset = header.dataOffset
        let present = max(0, Int64(status.st_size) - header.dataOffset)
        let declaredBytes = header.declaredDataBytes.map { Int64($0) }
        dataFrames = min(declaredBytes ?? present, present) / Int64(header.blockAlign)
        toleratesTruncation = toleratingTruncation
        bytes = .allocate(byteCount: 1 << 18, alignment: 16)
        source = AudioSourceInfo(
            container: "wav", codec: header.codec, sampleRate: sampleRate, channelCount: 1,
            sampleFormat: header.encoding == .int16 ? .pcmFormatInt16
                : header.encoding == .float32 ? .pcmFormatFloat32 : .pcmFormatInt32,
            bitsPerSample: header.blockAlign * 8, isPCM: true,
            declaredFrames: declaredBytes.map { $0 / Int64(header.blockAlign) },
            bitRate: Int64(header.byteRate) * 8)
    }

    deinit {
        close(descriptor)
        bytes.deallocate()
    }

    /// Fills `output` with the next samples, up to its count; returns how many, 0 at the end.
    package func read(into output: UnsafeMutableBufferPointer<Float>) throws(AudioError) -> Int {
        var written = 0
        while written < output.count, !finished {
            let frames = min(output.count - written, bytes.count / blockAlign, Int(dataFrames - framesRead))
            let got = frames > 0 ? try readFully(frames * blockAlign, at: dataOffset + framesRead * Int64(blockAlign)) : 0
            let whole = got / blockAlign
            if whole == 0 {
                finished = true
                try checkComplete()
                break
            }
            convert(whole, into: UnsafeMutableBufferPointer(rebasing: output[written ..< written + whole]))
            written += whole
            framesRead += Int64(whole)
        }
        return written
    }

    /// `count` bytes at `offset` into the scratch buffer, fewer only at the end of the file.
    private func readFully(_ count: Int, at offset: Int64) throws(AudioError) -> Int {
        var got = 0
        while got < count {
            let n = pread(descriptor, bytes.baseAddress! + got, count - got, off_t(offset) + off_t(got))
            if n < 0 {
                if errno == EINTR { continue }
                throw .corruptFile(url, detail: "reading it failed (\(String(cString: strerror(errno))))")
            }
            if n == 0 { break }
            got += n
        }
        return got
    }

    /// libswresample's conversions to Float32: int16 × 2⁻¹⁵; 24-bit samples as FFmpeg's decoder delivers them
    /// (shifted into 32 bits) and 32-bit ones × 2⁻³¹; floats as they are.
    private func convert(_ count: Int, into output: UnsafeMutableBufferPointer<Float>) {
        let raw = UnsafeRawBufferPointer(bytes)
        switch encoding {
        case .int16:
            for i in 0 ..< count {
                output[i] = Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self)))
                    * (1 / 32768)
            }
        case .int24:
            for i in 0 ..< count {
                let b = 3 * i
                let bits = UInt32(raw[b]) << 8 | UInt32(raw[b + 1]) << 16 | UInt32(raw[b + 2]) << 24
                output[i] = Float(Int32(bitPattern: bits)) * (1 / 2_147_483_648)
            }
        case .int32:
            for i in 0 ..< count {
                output[i] = Float(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self)))
                    * (1 / 2_147_483_648)
            }
        case .float32:
            for i in 0 ..< count {
                output[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
            }
        }
    }

    private func checkComplete() throws(AudioError) {
        truncation = try AudioTruncation.check(url, source: source, presentFrames: framesRead,
                                               tolerated: toleratesTruncation)
    }

    private struct Header {
        var encoding: Encoding
        var codec: String
        var channels: Int
        var sampleRate: Int
        var byteRate: Int
        var blockAlign: Int
        var dataOffset: Int64
        /// The `data` chunk's size, nil when left open (0 or 0xFFFFFFFF, as streaming writers leave it).
        var declaredDataBytes: UInt32?
    }

    /// The last 12 bytes of the extensible form's sub-format GUID (KSDATAFORMAT_SUBTYPE_PCM and _IEEE_FLOAT; the
    /// first four are the format tag).
    private static let subformatGUIDTail: [UInt8] = [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

    /// The format and data chunks of a plain PCM or float WAV header, nil for anything else.
    private static func header(descriptor: Int32) -> Header? {
        var head = [UInt8](repeating: 0, count: 1 << 16)
        let count = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, $0.count, 0) }
        guard count >= 12 else { return nil }
        func tag(_ offset: Int) -> String { String(decoding: head[offset ..< offset + 4], as: UTF8.self) }
        func uint16(_ offset: Int) -> Int { Int(head[offset]) | Int(head[offset + 1]) << 8 }
        func uint32(_ offset: Int) -> UInt32 { UInt32(uint16(offset)) | UInt32(uint16(offset + 2)) << 16 }
        guard tag(0) == "RIFF", tag(8) == "WAVE" else { return nil }
        var format: Header? // its data fields set at the `data` chunk
        var offset = 12
        while offset + 8 <= count {
            let size = Int(uint32(offset + 4))
            switch tag(offset) {
            case "fmt " where format == nil:
                // WAVE_FORMAT_PCM (1) or WAVE_FORMAT_IEEE_FLOAT (3), plain or in the extensible form (0xFFFE) with
                // every bit of the container valid, as FFmpeg writes 24- and 32-bit WAV.
                guard [16, 18, 40].contains(size), offset + 8 + size <= count else { return nil }
                let body = offset + 8
                let bits = uint16(body + 14)
                var formatTag = uint16(body)
                if formatTag == 0xFFFE {
                    guard size == 40, uint16(body + 16) == 22, uint16(body + 18) == bits,
                          head[body + 28 ..< body + 40].elementsEqual(Self.subformatGUIDTail)
                    else { return nil }
                    formatTag = Int(uint32(body + 24))
                }
                let encoding: (Encoding, String)
                switch (formatTag, bits) {
                case (1, 16): encoding = (.int16, "pcm_s16le")
                case (1, 24): encoding = (.int24, "pcm_s24le")
                case (1, 32): encoding = (.int32, "pcm_s32le")
                case (3, 32): encoding = (.float32, "pcm_f32le")
                default: return nil
                }
                let channels = uint16(body + 2), rate = Int(uint32(body + 4)), blockAlign = uint16(body + 12)
                guard channels > 0, rate > 0, blockAlign == channels * bits / 8,
                      Int(uint32(body + 8)) == rate * blockAlign
                else { return nil }
                format = Header(encoding: encoding.0, codec: encoding.1, channels: channels, sampleRate: rate,
                                byteRate: Int(uint32(body + 8)), blockAlign: blockAlign, dataOffset: 0, declaredDataBytes: nil)
            case "data":
                guard var header = format else { return nil }
                let declared = uint32(offset + 4)
                header.dataOffset = Int64(offset + 8)
                header.declaredDataBytes = declared == 0 || declared == UInt32.max ? nil : declared
                return header
            default:
                break
            }
            guard size & 1 == 0 else { return nil } // FFmpeg's handling of odd sizes is its own
            offset += 8 + size
        }
        return nil
    }
}
