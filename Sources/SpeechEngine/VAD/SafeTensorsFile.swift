import Foundation

/// The tensors of a `.safetensors` file as fp32 arrays, by name.
///
/// Layout: `u64` little-endian header length, a JSON header `{name: {dtype, shape, data_offsets: [begin, end]}}`
/// (plus an optional `__metadata__`), then the data; offsets count from the end of the header.
struct SafeTensorsFile {
    struct Entry {
        let shape: [Int]
        let values: [Float]
    }

    let tensors: [String: Entry]

    init(url: URL) throws {
        let data = try Data(contentsOf: url, options: .alwaysMapped)
        func corrupt(_ reason: String) -> VADError { .corruptFile(url, reason) }
        guard data.count >= 8 else { throw corrupt("shorter than its header length") }
        let headerLength = data.prefix(8).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        guard headerLength > 0, headerLength <= data.count - 8 else { throw corrupt("header length out of range") }
        let headerData = data.subdata(in: 8..<(8 + headerLength))
        guard let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any] else {
            throw corrupt("header is not a JSON object")
        }
        let base = 8 + headerLength
        var tensors: [String: Entry] = [:]
        for (name, value) in header where name != "__metadata__" {
            guard let info = value as? [String: Any], let dtype = info["dtype"] as? String,
                  let shape = info["shape"] as? [Int], let offsets = info["data_offsets"] as? [Int], offsets.count == 2,
                  offsets[0] >= 0, offsets[0] <= offsets[1], offsets[1] <= data.count - base
            else { throw corrupt("bad header entry for \(name)") }
            guard let count = ModelFile.elementCount(shape) else { throw corrupt("\(name) has the impossible shape \(shape)") }
            let bytes = data.subdata(in: (base + offsets[0])..<(base + offsets[1]))
            let values: [Float]
            switch dtype {
            case "F32":
                guard bytes.count % 4 == 0, bytes.count / 4 == count else { throw corrupt("\(name) has \(bytes.count) bytes for \(count) floats") }
                values = bytes.withUnsafeBytes { raw in
                    (0..<count).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
                }
            case "F16":
                guard bytes.count % 2 == 0, bytes.count / 2 == count else { throw corrupt("\(name) has \(bytes.count) bytes for \(count) halves") }
                values = bytes.withUnsafeBytes { raw in
                    [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                        HalfConversion.halfToFloat(raw.baseAddress!, buffer.baseAddress!, count: count)
                        initialized = count
                    }
                }
            default:
                throw VADError.unsupportedDataType(name, dtype)
            }
            tensors[name] = Entry(shape: shape, values: values)
        }
        self.tensors = tensors
    }
}
