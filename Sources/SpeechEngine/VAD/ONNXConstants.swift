import Foundation

/// The constant tensors of an ONNX model (initializers and `Constant` nodes, in every subgraph), by name, as fp32.
///
/// A minimal protobuf walk over the fields that hold them: `ModelProto.graph` (7); `GraphProto.node` (1) and
/// `.initializer` (5); `NodeProto.output` (2), `.op_type` (4), `.attribute` (5); `AttributeProto.name` (1),
/// `.t` (5), `.g` (6), `.graphs` (11); `TensorProto.dims` (1), `.data_type` (2), `.float_data` (4), `.name` (8),
/// `.raw_data` (9). Other fields are skipped by wire type.
struct ONNXConstants {
    struct Entry {
        let shape: [Int]
        let values: [Float]
    }

    private(set) var tensors: [String: Entry] = [:]

    init(url: URL) throws {
        let data = try Data(contentsOf: url, options: .alwaysMapped)
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            do {
                var model = ProtoReader(bytes[...])
                while let (field, value) = try model.next() {
                    if field == 7, case .bytes(let graph) = value { try readGraph(graph) }
                }
            } catch let error as ProtoReader.Malformed {
                throw VADError.corruptFile(url, error.reason)
            }
        }
    }

    /// Subgraphs nest at most this deep (Silero's `If` branches: 1); deeper nesting is a damaged file, not a reason
    /// to run out of stack.
    static let maximumGraphDepth = 16

    private mutating func readGraph(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, depth: Int = 0) throws {
        guard depth <= Self.maximumGraphDepth else {
            throw ProtoReader.Malformed(reason: "subgraphs nested more than \(Self.maximumGraphDepth) deep")
        }
        var reader = ProtoReader(bytes)
        while let (field, value) = try reader.next() {
            guard case .bytes(let body) = value else { continue }
            if field == 1 { try readNode(body, depth: depth) }
            if field == 5 { try readTensor(body, name: nil) }
        }
    }

    private mutating func readNode(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, depth: Int) throws {
        var reader = ProtoReader(bytes)
        var output: String?
        var opType = ""
        var valueTensor: Slice<UnsafeBufferPointer<UInt8>>?
        while let (field, value) = try reader.next() {
            guard case .bytes(let body) = value else { continue }
            switch field {
            case 2: if output == nil { output = String(decoding: body, as: UTF8.self) }
            case 4: opType = String(decoding: body, as: UTF8.self)
            case 5:
                var attribute = ProtoReader(body)
                var name = ""
                var tensor: Slice<UnsafeBufferPointer<UInt8>>?
                while let (attributeField, attributeValue) = try attribute.next() {
                    guard case .bytes(let inner) = attributeValue else { continue }
                    switch attributeField {
                    case 1: name = String(decoding: inner, as: UTF8.self)
                    case 5: tensor = inner
                    case 6, 11: try readGraph(inner, depth: depth + 1)
                    default: break
                    }
                }
                if name == "value", let tensor { valueTensor = tensor }
            default: break
            }
        }
        if opType == "Constant", let output, let valueTensor { try readTensor(valueTensor, name: output) }
    }

    private mutating func readTensor(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, name: String?) throws {
        var reader = ProtoReader(bytes)
        var dims: [Int] = []
        var dataType = 0
        var tensorName = name
        var raw: Slice<UnsafeBufferPointer<UInt8>>?
        var floats: [Float] = []
        while let (field, value) = try reader.next() {
            switch (field, value) {
            case (1, .varint(let dim)): dims.append(Int(truncatingIfNeeded: dim))
            case (1, .bytes(let packed)):
                var inner = ProtoReader(packed)
                while let dim = try inner.varint() { dims.append(Int(truncatingIfNeeded: dim)) }
            case (2, .varint(let type)): dataType = Int(truncatingIfNeeded: type)
            case (4, .bytes(let packed)):
                floats += stride(from: packed.startIndex, to: packed.endIndex - 3, by: 4).map { littleEndianFloat(packed, at: $0) }
            case (4, .fixed32(let bits)): floats.append(Float(bitPattern: bits))
            case (8, .bytes(let body)): if name == nil { tensorName = String(decoding: body, as: UTF8.self) }
            case (9, .bytes(let body)): raw = body
            default: break
            }
        }
        // Only float tensors are weights; integer constants (shapes, axes) are skipped.
        guard dataType == 1, let tensorName else { return }
        // Dimensions are the file's own numbers: negative or overflowing ones are damage, not sizes.
        guard let count = ModelFile.elementCount(dims) else {
            throw ProtoReader.Malformed(reason: "\(tensorName) has the impossible shape \(dims)")
        }
        if let raw {
            guard raw.count % 4 == 0, raw.count / 4 == count else { throw ProtoReader.Malformed(reason: "\(tensorName) has \(raw.count) bytes for \(count) floats") }
            floats = stride(from: raw.startIndex, to: raw.endIndex, by: 4).map { littleEndianFloat(raw, at: $0) }
        }
        guard floats.count == count else { throw ProtoReader.Malformed(reason: "\(tensorName) has \(floats.count) values for shape \(dims)") }
        tensors[tensorName] = Entry(shape: dims, values: floats)
    }

    private func littleEndianFloat(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, at index: Int) -> Float {
        let bits = UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
        return Float(bitPattern: bits)
    }
}

/// Reads protobuf wire-format fields (tag, then a varint, fixed-width or length-delimited value) from a byte range.
struct ProtoReader {
    struct Malformed: Error { let reason: String }

    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case fixed32(UInt32)
        case bytes(Slice<UnsafeBufferPointer<UInt8>>)
    }

    private let bytes: Slice<UnsafeBufferPointer<UInt8>>
    private var position: Int

    init(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    /// The next varint, or nil at the end of the range.
    mutating func varint() throws -> UInt64? {
        guard position < bytes.endIndex else { return nil }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.endIndex, shift < 64 else { throw Malformed(reason: "truncated varint") }
            let byte = bytes[position]
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// The next field number and value, or nil at the end of the range.
    mutating func next() throws -> (Int, Value)? {
        guard let tag = try varint() else { return nil }
        let field = Int(tag >> 3)
        switch tag & 7 {
        case 0:
            guard let value = try varint() else { throw Malformed(reason: "truncated field \(field)") }
            return (field, .varint(value))
        case 1:
            guard bytes.endIndex - position >= 8 else { throw Malformed(reason: "truncated field \(field)") }
            let value = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[position + $1]) << (8 * UInt64($1)) }
            position += 8
            return (field, .fixed64(value))
        case 2:
            guard let length = try varint(), length <= UInt64(bytes.endIndex - position) else {
                throw Malformed(reason: "length of field \(field) runs past the end")
            }
            let body = bytes[position..<(position + Int(length))]
            position += Int(length)
            return (field, .bytes(body))
        case 5:
            guard bytes.endIndex - position >= 4 else { throw Malformed(reason: "truncated field \(field)") }
            let value = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[position + $1]) << (8 * UInt32($1)) }
            position += 4
            return (field, .fixed32(value))
        default:
            throw Malformed(reason: "unsupported wire type \(tag & 7)")
        }
    }
}
