import CVectorKernels

/// IEEE half and bfloat16 to fp32 conversion (baseline x86-64 has no F16C instruction).
enum HalfConversion {
    /// Converts `count` (a multiple of 16) little-endian fp16 values at `source` (any alignment: the kernel reads
    /// them by `memcpy`) into `destination` with the vector kernel: the same values as `halfToFloat` for every finite
    /// half (exact; infinities and NaNs, which no usable weight holds, become large finite values).
    static func widen(_ source: UnsafeRawPointer, into destination: UnsafeMutablePointer<Float>, count: Int) {
        precondition(count % 16 == 0, "the kernel widens 16 halves at a time")
        openspeech_vk_widen_halves(source.assumingMemoryBound(to: UInt16.self), destination, count)
    }

    /// Converts `count` little-endian fp16 values at `source` (any alignment) into `destination`.
    static func halfToFloat(_ source: UnsafeRawPointer, _ destination: UnsafeMutablePointer<Float>, count: Int) {
        table.withUnsafeBufferPointer { table in
            for i in 0..<count {
                destination[i] = table[Int(source.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))]
            }
        }
    }

    /// Every half value as fp32 (256 KiB, built once): one lookup per weight at load time.
    private static let table: [Float] = (0..<65536).map { convert(UInt32($0)) }

    private static func convert(_ h: UInt32) -> Float {
        let sign = (h & 0x8000) << 16
        let exponent = (h >> 10) & 0x1F
        let mantissa = h & 0x3FF
        let magnitude: Float
        switch exponent {
        case 0: magnitude = Float(mantissa) * 5.9604644775390625e-08        // subnormal: m · 2^-24
        case 31: magnitude = mantissa == 0 ? .infinity : .nan
        default: magnitude = Float(bitPattern: ((exponent + 112) << 23) | (mantissa << 13))
        }
        return Float(bitPattern: magnitude.bitPattern | sign)
    }

    /// Converts `count` little-endian bfloat16 values into `destination`.
    static func bfloat16ToFloat(_ source: UnsafeRawPointer, _ destination: UnsafeMutablePointer<Float>, count: Int) {
        for j in 0..<count {
            let b = UInt32(source.loadUnaligned(fromByteOffset: 2 * j, as: UInt16.self))
            destination[j] = Float(bitPattern: b << 16)
        }
    }
}
