import Foundation
import ArchiveReading

/// The tensors of a PyTorch checkpoint (`torch.save` of a state dictionary, or of a dictionary holding one under
/// `state_dict`, as PyTorch Lightning writes), read without PyTorch: the zip archive, its `data.pkl` through
/// `PickleReader`, and each tensor's storage (`<archive>/data/<key>`) with its offset, sizes and strides. Floating
/// tensors (float32, float16, bfloat16, float64) and integer ones (int64, int32) are read as `Float`.
///
/// Bounded: a tensor never addresses outside its storage, a storage never exceeds its archive entry, and the archive
/// is read entry by entry as tensors need them.
package struct TorchCheckpoint {
    package struct Tensor: Sendable {
        package let shape: [Int]
        package let values: [Float]
    }

    /// The state dictionary's tensors by name.
    package let tensors: [String: Tensor]
    let file: String

    package init(url: URL) throws {
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw CheckpointError.unreadable(file: url.path, reason: "no such readable file")
        }
        let archive: ZipArchive
        do {
            archive = try ZipArchive(url: url)
        } catch {
            throw CheckpointError.corrupt(file: url.lastPathComponent, reason: "it is not a zip archive (PyTorch's format since 1.6)")
        }
        try self.init(archive: archive, file: url.lastPathComponent)
    }

    package init(data: Data, file: String) throws {
        let archive: ZipArchive
        do {
            archive = try ZipArchive(data: data)
        } catch {
            throw CheckpointError.corrupt(file: file, reason: "it is not a zip archive (PyTorch's format since 1.6)")
        }
        try self.init(archive: archive, file: file)
    }

    private init(archive: ZipArchive, file: String) throws {
        self.file = file
        func corrupt(_ reason: String) -> CheckpointError { .corrupt(file: file, reason: reason) }
        // Entries by path, read once (`archive[path]` walks the whole directory; CAM++ has 938 entries).
        var entries: [String: ZipArchive.Entry] = [:]
        for entry in archive.entries where entries[entry.path] == nil { entries[entry.path] = entry }
        guard let pickleEntry = entries.values.filter({ $0.path == "data.pkl" || $0.path.hasSuffix("/data.pkl") })
            .min(by: { $0.path < $1.path }) else {
            throw corrupt("the archive has no data.pkl")
        }
        let prefix = String(pickleEntry.path.dropLast("data.pkl".count))
        let root = try PickleReader.read(try Self.contents(of: pickleEntry, in: archive, file: file), file: file)

        guard case .dict(var dictionary) = root else { throw corrupt("its pickle does not hold a dictionary") }
        if case .dict(let inner)? = dictionary["state_dict"] { dictionary = inner }

        var storages: [String: [UInt8]] = [:]
        var tensors: [String: Tensor] = [:]
        for (name, value) in dictionary.namedEntries {
            guard let reference = try Self.tensorReference(value, name: name, file: file) else { continue }
            if storages[reference.key] == nil {
                guard let entry = entries[prefix + "data/" + reference.key] else {
                    throw corrupt("the storage of \(name) (data/\(reference.key)) is missing")
                }
                storages[reference.key] = try Self.contents(of: entry, in: archive, file: file)
            }
            tensors[name] = try reference.tensor(in: storages[reference.key]!, name: name, file: file)
        }
        self.tensors = tensors
    }

    /// The tensor `name`, which must have `shape`.
    package func tensor(_ name: String, shape: [Int]) throws -> [Float] {
        guard let tensor = tensors[name] else { throw CheckpointError.missingTensor(file: file, name: name) }
        guard tensor.shape == shape else {
            throw CheckpointError.unexpectedShape(file: file, name: name, shape: tensor.shape, expected: shape)
        }
        return tensor.values
    }

    /// An archive entry's bytes, refused past 1 GiB (no checkpoint this engine runs comes near).
    private static func contents(of entry: ZipArchive.Entry, in archive: ZipArchive, file: String) throws -> [UInt8] {
        do {
            return try archive.contents(of: entry, limit: 1 << 30)
        } catch {
            throw CheckpointError.corrupt(file: file, reason: "\(error)")
        }
    }

    /// How a pickled tensor addresses its storage.
    struct TensorReference {
        enum ElementType {
            case float32, float16, bfloat16, float64, int64, int32

            init?(storage: String) {
                switch storage {
                case "FloatStorage": self = .float32
                case "HalfStorage": self = .float16
                case "BFloat16Storage": self = .bfloat16
                case "DoubleStorage": self = .float64
                case "LongStorage": self = .int64
                case "IntStorage": self = .int32
                default: return nil
                }
            }

            var size: Int {
                switch self {
                case .float16, .bfloat16: 2
                case .float32, .int32: 4
                case .float64, .int64: 8
                }
            }
        }

        let key: String
        let type: ElementType
        let storageCount: Int
        let offset: Int
        let shape: [Int]
        let strides: [Int]

        /// The tensor's values, row-major, gathered through its strides.
        func tensor(in storage: [UInt8], name: String, file: String) throws -> Tensor {
            func corrupt(_ reason: String) -> CheckpointError { .corrupt(file: file, reason: "\(name) \(reason)") }
            guard storageCount <= storage.count / type.size else {
                throw corrupt("claims \(storageCount) elements in a storage of \(storage.count) bytes")
            }
            guard shape.count == strides.count, shape.allSatisfy({ $0 >= 0 }), strides.allSatisfy({ $0 >= 0 }),
                  offset >= 0 else { throw corrupt("has a negative size, stride or offset") }
            var count = 1
            var last = offset
            for (size, stride) in zip(shape, strides) {
                let (product, overflow) = count.multipliedReportingOverflow(by: size)
                guard !overflow, product <= storageCount else { throw corrupt("has more elements than its storage") }
                count = product
                if size > 0 {
                    let (reach, reachOverflow) = (size - 1).multipliedReportingOverflow(by: stride)
                    guard !reachOverflow, reach <= storageCount else { throw corrupt("addresses past its storage") }
                    last += reach
                }
            }
            guard count == 0 || last < storageCount else { throw corrupt("addresses past its storage") }
            var values = [Float](repeating: 0, count: count)
            var contiguous = true, step = 1
            for (size, stride) in zip(shape, strides).reversed() where size > 1 {
                if stride != step { contiguous = false }
                step *= size
            }
            if contiguous {
                // Row-major already (every tensor `torch.save` writes from a module): one pass over the bytes.
                storage.withUnsafeBytes { raw in
                    let base = raw.baseAddress! + offset * type.size
                    values.withUnsafeMutableBufferPointer { out in
                        if type == .float32 {  // little-endian, as every host Swift runs on
                            UnsafeMutableRawPointer(out.baseAddress!).copyMemory(from: base, byteCount: count * 4)
                        } else {
                            for element in 0..<count { out[element] = value(at: base + element * type.size) }
                        }
                    }
                }
                return Tensor(shape: shape, values: values)
            }
            storage.withUnsafeBytes { raw in
                let base = raw.baseAddress!
                var index = [Int](repeating: 0, count: shape.count)
                for element in 0..<count {
                    var position = offset
                    for axis in 0..<shape.count { position += index[axis] * strides[axis] }
                    values[element] = value(at: base + position * type.size)
                    var axis = shape.count - 1
                    while axis >= 0 {
                        index[axis] += 1
                        if index[axis] < shape[axis] { break }
                        index[axis] = 0
                        axis -= 1
                    }
                }
            }
            return Tensor(shape: shape, values: values)
        }

        private func value(at pointer: UnsafeRawPointer) -> Float {
            switch type {
            case .float32: Float(bitPattern: pointer.loadUnaligned(as: UInt32.self).littleEndian)
            case .float16:
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 1) { widened in
                    HalfConversion.halfToFloat(pointer, widened.baseAddress!, count: 1)
                    return widened[0]
                }
            case .bfloat16: Float(bitPattern: UInt32(pointer.loadUnaligned(as: UInt16.self).littleEndian) << 16)
            case .float64: Float(Double(bitPattern: pointer.loadUnaligned(as: UInt64.self).littleEndian))
            case .int64: Float(Int64(littleEndian: pointer.loadUnaligned(as: Int64.self)))
            case .int32: Float(Int32(littleEndian: pointer.loadUnaligned(as: Int32.self)))
            }
        }
    }

    /// The tensor a state dictionary's value pickles (`_rebuild_tensor_v2`, possibly inside `_rebuild_parameter`),
    /// nil for any other value (a checkpoint's metadata).
    static func tensorReference(_ value: PickleValue, name: String, file: String) throws -> TensorReference? {
        guard case .call(.global(let module, let function), let arguments) = value, module == "torch._utils" else { return nil }
        func corrupt(_ reason: String) -> CheckpointError { .corrupt(file: file, reason: "\(name) \(reason)") }
        switch function {
        case "_rebuild_parameter", "_rebuild_parameter_with_state":
            guard let tensor = arguments.first else { throw corrupt("is a parameter without its tensor") }
            return try tensorReference(tensor, name: name, file: file)
        case "_rebuild_tensor_v2":
            guard arguments.count >= 4, case .persistent(let storage) = arguments[0],
                  let location = storage.elements, location.count >= 5, location[0].string == "storage",
                  case .global(_, let storageType) = location[1], let key = location[2].string,
                  let storageCount = location[4].integer, let offset = arguments[1].integer,
                  let sizes = arguments[2].elements, let strides = arguments[3].elements
            else { throw corrupt("is not a tensor PyTorch's format describes") }
            guard let type = TensorReference.ElementType(storage: storageType) else {
                throw CheckpointError.unsupportedType(file: file, name: name, type: storageType)
            }
            guard !key.contains("/"), !key.contains(".."), storageCount >= 0, storageCount <= Int64(1 << 30), offset >= 0,
                  sizes.count <= 8 else { throw corrupt("has an impossible storage key, size or rank") }
            let shape = try sizes.map { size -> Int in
                guard let size = size.integer, size >= 0, size <= Int64(1 << 30) else { throw corrupt("has an impossible size") }
                return Int(size)
            }
            let steps = try strides.map { stride -> Int in
                guard let stride = stride.integer, stride >= 0, stride <= Int64(1 << 30) else { throw corrupt("has an impossible stride") }
                return Int(stride)
            }
            guard offset <= storageCount else { throw corrupt("starts past its storage") }
            return TensorReference(key: key, type: type, storageCount: Int(storageCount), offset: Int(offset),
                                   shape: shape, strides: steps)
        default:
            return nil
        }
    }
}
