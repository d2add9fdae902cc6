import Foundation

/// Writes a copy of a CTranslate2 Whisper directory whose fp16 matrices are stored as fp32 or as int8 with a
/// `_scale` per row (CTranslate2's int8 layout), so loading from every stored type can be tested on one model.
enum ModelRewriter {
    enum Storage { case float32, int8 }

    /// A new directory beside nothing else, holding `source`'s files with model.bin rewritten; `damage` may change
    /// the scales of one int8 variable (given its name) before they are written.
    static func rewrite(_ source: URL, as storage: Storage, into directory: URL,
                        damage: (name: String, change: ([Float]) -> [Float])? = nil) throws {
        for name in ["config.json", "tokenizer.json", "vocabulary.txt", "vocabulary.json", "preprocessor_config.json"]
        where FileManager.default.fileExists(atPath: source.appendingPathComponent(name).path) {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        let input = try Data(contentsOf: source.appendingPathComponent("model.bin"))
        var reader = ByteReader(data: input)
        var out = Data()
        func u8(_ v: UInt8) { out.append(v) }
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func name(_ s: String) {
            let bytes = Array(s.utf8) + [0]
            withUnsafeBytes(of: UInt16(bytes.count).littleEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: bytes)
        }
        func variable(_ n: String, _ shape: [Int], _ type: UInt8, _ bytes: Data) {
            name(n); u8(UInt8(shape.count)); shape.forEach { u32(UInt32($0)) }; u8(type); u32(UInt32(bytes.count))
            out.append(bytes)
        }
        u32(reader.u32())                   // format version
        name(reader.name())                 // spec
        u32(reader.u32())                   // revision
        let count = Int(reader.u32())
        var variables: [(String, [Int], UInt8, Data)] = []
        for _ in 0..<count {
            let n = reader.name()
            let shape = (0..<Int(reader.u8())).map { _ in Int(reader.u32()) }
            let type = reader.u8()
            let bytes = reader.bytes(Int(reader.u32()))
            guard type == 4, shape.count == 2, n.hasSuffix("weight") else {    // 4: float16
                variables.append((n, shape, type, bytes))
                continue
            }
            let values = bytes.withUnsafeBytes { raw in
                (0..<(bytes.count / 2)).map { Float(Float16(bitPattern: raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self))) }
            }
            switch storage {
            case .float32:
                variables.append((n, shape, 0, values.withUnsafeBytes { Data($0) }))
            case .int8:
                let columns = shape[1]
                var scales: [Float] = [], quantized = Data(capacity: values.count)
                for r in 0..<shape[0] {
                    let row = values[(r * columns)..<((r + 1) * columns)]
                    let amax = row.map(abs).max() ?? 0
                    let scale: Float = amax > 0 ? 127 / amax : 1
                    scales.append(scale)
                    quantized.append(contentsOf: row.map { UInt8(bitPattern: Int8(($0 * scale).rounded())) })
                }
                if let damage, damage.name == n { scales = damage.change(scales) }
                variables.append((n, shape, 1, quantized))
                variables.append((n + "_scale", [shape[0]], 0, scales.withUnsafeBytes { Data($0) }))
            }
        }
        u32(UInt32(variables.count))
        for (n, shape, type, bytes) in variables { variable(n, shape, type, bytes) }
        out.append(input[input.startIndex + reader.offset ..< input.endIndex])   // aliases
        try out.write(to: directory.appendingPathComponent("model.bin"))
    }

    private struct ByteReader {
        let data: Data
        var offset = 0
        mutating func bytes(_ n: Int) -> Data {
            defer { offset += n }
            return data[(data.startIndex + offset)..<(data.startIndex + offset + n)]
        }
        mutating func u8() -> UInt8 { bytes(1).first! }
        mutating func u32() -> UInt32 { bytes(4).withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) } }
        mutating func name() -> String {
            let length = Int(bytes(2).withUnsafeBytes { UInt16(littleEndian: $0.loadUnaligned(as: UInt16.self)) })
            return String(decoding: bytes(length).dropLast(), as: UTF8.self)
        }
    }
}
