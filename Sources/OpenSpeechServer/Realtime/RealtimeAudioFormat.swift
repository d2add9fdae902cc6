/// The encodings a Realtime session's `input_audio_format` names, as OpenAI defines them: `pcm16` is 16-bit
/// little-endian mono at 24 kHz; the G.711 ones are 8 kHz mono, one byte a sample.
package enum RealtimeAudioFormat: String, Sendable, Equatable, CaseIterable {
    case pcm16
    case g711Ulaw = "g711_ulaw"
    case g711Alaw = "g711_alaw"

    var sampleRate: Double {
        self == .pcm16 ? 24_000 : 8_000
    }

    var bytesPerSample: Int {
        self == .pcm16 ? 2 : 1
    }
}

/// Turns the bytes of `input_audio_buffer.append` events into 16-bit samples. Events may cut a sample in two (an
/// odd number of PCM bytes): the odd byte waits for the next event, so the samples are the same however the client
/// cuts its audio.
package struct InputAudioDecoder: Sendable, Equatable {
    let format: RealtimeAudioFormat
    /// The first byte of a PCM sample whose second byte has not arrived.
    private var pendingByte: UInt8?

    package init(format: RealtimeAudioFormat) {
        self.format = format
    }

    /// Bytes received that do not yet make a sample.
    var pendingByteCount: Int { pendingByte == nil ? 0 : 1 }

    package mutating func decode(_ bytes: some Collection<UInt8>) -> [Int16] {
        switch format {
        case .pcm16:
            var samples: [Int16] = []
            samples.reserveCapacity((bytes.count + 1) / 2)
            var low = pendingByte
            for byte in bytes {
                if let first = low {
                    samples.append(Int16(bitPattern: UInt16(first) | UInt16(byte) << 8))
                    low = nil
                } else {
                    low = byte
                }
            }
            pendingByte = low
            return samples
        case .g711Ulaw:
            return bytes.map(Self.expandULaw)
        case .g711Alaw:
            return bytes.map(Self.expandALaw)
        }
    }

    /// ITU-T G.711 µ-law to linear 16-bit.
    static func expandULaw(_ byte: UInt8) -> Int16 {
        let value = ~byte
        let exponent = Int32((value >> 4) & 0x07)
        let mantissa = Int32(value & 0x0F)
        let magnitude = ((mantissa << 3) + 0x84) << exponent - 0x84
        return Int16(value & 0x80 != 0 ? -magnitude : magnitude)
    }

    /// ITU-T G.711 A-law to linear 16-bit.
    static func expandALaw(_ byte: UInt8) -> Int16 {
        let value = byte ^ 0x55
        let exponent = Int32((value >> 4) & 0x07)
        let mantissa = Int32(value & 0x0F)
        let magnitude = exponent == 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1)
        return Int16(value & 0x80 != 0 ? magnitude : -magnitude)
    }
}
