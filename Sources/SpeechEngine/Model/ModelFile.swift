import Foundation

/// A memory-mapped CTranslate2 `model.bin`: its spec name and variables (name, shape, data type, bytes).
///
/// Layout (little-endian): `u32` format version, spec name, `u32` spec revision, `u32` variable count,
/// then per variable: name, `u8` rank, `u32` × rank dims, `u8` data type, `u32` byte count, bytes;
/// then `u32` alias count and (alias, target) name pairs. A name is `u16` length (with NUL) + bytes.
struct ModelFile {
    enum DataType: UInt8 {
        case float32 = 0, int8 = 1, int16 = 2, int32 = 3, float16 = 4, bfloat16 = 5

        var byteWidth: Int {
            switch self {
            case .int8: 1
            case .int16, .float16, .bfloat16: 2
            case .float32, .int32: 4
            }
        }
    }

    struct Variable {
        let shape: [Int]
        let dataType: DataType
        let offset: Int
        let byteCount: Int
    }

    let url: URL
    let formatVersion: Int
    let specName: String
    let specRevision: Int
    private let data: Data
    private(set) var variables: [String: Variable] = [:]
    private(set) var aliases: [String: String] = [:]

    init(url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { throw ModelError.missingFile(url) }
        self.url = url
        data = try Data(contentsOf: url, options: .alwaysMapped)
        var reader = Reader(data: data, url: url)
        formatVersion = Int(try reader.u32())
        guard (4...6).contains(formatVersion) else { throw ModelError.unsupportedFormatVersion(formatVersion) }
        specName = try reader.name()
        specRevision = Int(try reader.u32())
        guard specName == "WhisperSpec" else { throw ModelError.wrongArchitecture(specName) }
        let count = Int(try reader.u32())
        for _ in 0..<count {
            let name = try reader.name()
            let rank = Int(try reader.u8())
            var shape: [Int] = []
            for _ in 0..<rank { shape.append(Int(try reader.u32())) }
            let code = try reader.u8()
            guard let dataType = DataType(rawValue: code) else { throw ModelError.unsupportedDataType(name, Int(code)) }
            let byteCount = Int(try reader.u32())
            // The bytes must be exactly the shape's values: every later read trusts the shape.
            guard let count = Self.elementCount(shape),
                  case let (expected, overflow) = count.multipliedReportingOverflow(by: dataType.byteWidth), !overflow,
                  expected == byteCount
            else {
                throw ModelError.corruptVariable(name, reason: "declares shape \(shape) of \(dataType) but holds \(byteCount) bytes")
            }
            let offset = reader.offset
            try reader.skip(byteCount)
            variables[name] = Variable(shape: shape, dataType: dataType, offset: offset, byteCount: byteCount)
        }
        if reader.offset < data.count {
            let aliasCount = Int(try reader.u32())
            for _ in 0..<aliasCount {
                let alias = try reader.name()
                aliases[alias] = try reader.name()
            }
        }
    }

    /// The number of values of `shape`, nil when the product overflows.
    static func elementCount(_ shape: [Int]) -> Int? {
        var count = 1
        for dimension in shape {
            guard dimension >= 0 else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
            if overflow { return nil }
            count = product
        }
        return count
    }

    func variable(_ name: String) -> Variable? {
        variables[name] ?? aliases[name].flatMap { variables[$0] }
    }

    /// Drops the mapped pages lying wholly inside `v` from resident memory once its values are copied out, so
    /// loading peaks at the converted weights plus one variable rather than plus the whole file. The mapping is
    /// a private read-only map of the file: pages touched again are read back from it, unchanged.
    private func releasePages(of v: Variable) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        data.withUnsafeBytes { raw in
            let start = Int(bitPattern: raw.baseAddress! + v.offset)
            let lower = (start + page - 1) / page * page, upper = (start + v.byteCount) / page * page
            guard upper > lower, let address = UnsafeMutableRawPointer(bitPattern: lower) else { return }
            _ = madvise(address, upper - lower, Int32(MADV_DONTNEED))
        }
    }

    /// An integer scalar (num_heads, flags).
    func integer(_ name: String) throws -> Int {
        guard let v = variable(name) else { throw ModelError.missingVariable(name) }
        guard v.byteCount >= v.dataType.byteWidth else { throw ModelError.unexpectedShape(name, v.shape) }
        return data.withUnsafeBytes { raw in
            switch v.dataType {
            case .int8: Int(raw.load(fromByteOffset: v.offset, as: Int8.self))
            case .int16: Int(raw.loadUnaligned(fromByteOffset: v.offset, as: Int16.self))
            case .int32: Int(raw.loadUnaligned(fromByteOffset: v.offset, as: Int32.self))
            case .float32: Int(exactly: raw.loadUnaligned(fromByteOffset: v.offset, as: Float.self).rounded(.towardZero)) ?? 0
            default: 0
            }
        }
    }

    /// A matrix variable in half precision: fp16 bytes copied as they are, other types rounded.
    func halfMatrix(_ name: String) throws -> HalfMatrix {
        guard let v = variable(name), v.shape.count == 2 else { throw ModelError.missingVariable(name) }
        if v.dataType == .float16 {
            defer { releasePages(of: v) }
            return data.withUnsafeBytes { raw in
                HalfMatrix(rows: v.shape[0], columns: v.shape[1]) { out in
                    UnsafeMutableRawPointer(out).copyMemory(from: raw.baseAddress! + v.offset, byteCount: v.byteCount)
                }
            }
        }
        let values = try tensor(name)
        return HalfMatrix(rows: v.shape[0], columns: v.shape[1]) { out in
            for i in 0..<values.count { out[i] = Float16(values.pointer[i]).bitPattern }
        }
    }

    /// Rows `rows` of a matrix variable in half precision, in that order (row i of the result is row `rows[i]`):
    /// fp16 bytes copied as they are, other types rounded; only those rows' pages are read.
    func halfMatrix(_ name: String, rows: [Int]) throws -> HalfMatrix {
        guard let v = variable(name), v.shape.count == 2 else { throw ModelError.missingVariable(name) }
        let columns = v.shape[1]
        guard columns % 16 == 0 else { throw ModelError.unexpectedShape(name, v.shape) }
        if let bad = rows.first(where: { !(0..<v.shape[0]).contains($0) }) {
            throw ModelError.inconsistentModel(file: "model.bin", field: name,
                                               reason: "has \(v.shape[0]) rows, too few for the token id \(bad)")
        }
        if v.dataType == .float16 {
            return data.withUnsafeBytes { raw in
                HalfMatrix(rows: rows.count, columns: columns) { out in
                    for (i, row) in rows.enumerated() {
                        UnsafeMutableRawPointer(out + i * columns)
                            .copyMemory(from: raw.baseAddress! + v.offset + row * columns * 2, byteCount: columns * 2)
                    }
                }
            }
        }
        let values = try tensor(name)
        return HalfMatrix(rows: rows.count, columns: columns) { out in
            for (i, row) in rows.enumerated() {
                for c in 0..<columns { out[i * columns + c] = Float16(values.pointer[row * columns + c]).bitPattern }
            }
        }
    }

    /// The `<name>_scale` of an int8/int16 variable: CTranslate2's multipliers from weight units to integer units,
    /// one per row or one for all. A scale that is not a positive finite number is a damaged file.
    func quantizationScales(_ name: String) throws -> [Float] {
        let scales = try tensor(name + "_scale").array
        guard !scales.isEmpty, scales.allSatisfy({ $0.isFinite && $0 > 0 }) else {
            throw ModelError.invalidQuantizationScale(name)
        }
        return scales
    }

    /// Calls `body` with an int8 matrix variable's values (`rows × columns`, row-major) and CTranslate2's scale for
    /// each row (`w ≈ q / scale`); nil, without calling it, when the variable is not a matrix stored as int8.
    func withInt8Matrix<R>(_ name: String,
                           _ body: (_ values: UnsafePointer<Int8>, _ scales: UnsafePointer<Float>) throws -> R) throws -> R? {
        guard let v = variable(name), v.dataType == .int8, v.shape.count == 2 else { return nil }
        let stored = try quantizationScales(name)
        guard stored.count == v.shape[0] || stored.count == 1 else { throw ModelError.invalidQuantizationScale(name) }
        let scales = (0..<v.shape[0]).map { stored[stored.count == 1 ? 0 : $0] }
        defer { releasePages(of: v) }
        return try data.withUnsafeBytes { raw in
            try scales.withUnsafeBufferPointer { scales in
                try body((raw.baseAddress! + v.offset).assumingMemoryBound(to: Int8.self), scales.baseAddress!)
            }
        }
    }

    /// Calls `body` with a matrix variable as int8 values and CTranslate2's per-row scales without an fp32 copy: as
    /// stored when the file holds int8 (`withInt8Matrix`), quantized from its halves when it holds fp16
    /// (`withQuantizedHalfMatrix`); nil, without calling it, for any other variable (the caller converts from fp32).
    func withInt8Weights<R>(_ name: String,
                            _ body: (_ values: UnsafePointer<Int8>, _ scales: UnsafePointer<Float>) throws -> R) throws -> R? {
        if let stored = try withInt8Matrix(name, body) { return stored }
        return try withQuantizedHalfMatrix(name, body)
    }

    /// Calls `body` with an fp16 matrix variable (`rows × columns`, `columns` a multiple of 16) quantized to int8 per
    /// row, with the per-row scales (127 / max|w|): the bytes `RowQuantization.quantize` gives on the fp32
    /// `tensor(name)` (fp16 widens exactly), but widened a block of rows at a time by the vector kernel rather than
    /// into an fp32 copy of the whole matrix by table lookups. nil, without calling it, for any other variable.
    func withQuantizedHalfMatrix<R>(_ name: String,
                                    _ body: (_ values: UnsafePointer<Int8>, _ scales: UnsafePointer<Float>) throws -> R)
        throws -> R? {
        guard let v = variable(name), v.dataType == .float16, v.shape.count == 2 else { return nil }
        let rows = v.shape[0], columns = v.shape[1]
        guard rows > 0, columns > 0, columns % 16 == 0 else { return nil }
        let values = UnsafeMutablePointer<Int8>.allocate(capacity: rows * columns)
        let scales = UnsafeMutablePointer<Float>.allocate(capacity: rows)
        defer { values.deallocate(); scales.deallocate() }
        // 32 KiB of fp32 at a time (at least one row): widened and quantized while in the core's L1/L2 cache.
        let blockRows = max(1, 8_192 / columns)
        let widened = UnsafeMutablePointer<Float>.allocate(capacity: blockRows * columns)
        defer { widened.deallocate() }
        data.withUnsafeBytes { raw in
            let halves = raw.baseAddress! + v.offset
            for start in stride(from: 0, to: rows, by: blockRows) {
                let count = min(blockRows, rows - start)
                HalfConversion.widen(halves + 2 * start * columns, into: widened, count: count * columns)
                RowQuantization.quantize(widened, rows: 0..<count, columns: columns, into: values + start * columns,
                                         scales: scales + start, activations: false)
            }
        }
        releasePages(of: v)
        return try body(values, scales)
    }

    /// The variable as fp32, converted once (int8/int16 weights divided by their `_scale`).
    func tensor(_ name: String, shape expected: [Int]? = nil) throws -> Tensor {
        guard let v = variable(name) else { throw ModelError.missingVariable(name) }
        let shape = expected ?? v.shape
        guard let count = Self.elementCount(shape), count == Self.elementCount(v.shape) else {
            throw ModelError.unexpectedShape(name, v.shape)
        }
        var scales: [Float]? = nil
        if v.dataType == .int8 || v.dataType == .int16 {
            // One scale for all values, or one per row of the stored shape.
            let found = try quantizationScales(name)
            guard found.count == 1 || (v.shape.count >= 1 && found.count == v.shape[0] && count % found.count == 0) else {
                throw ModelError.invalidQuantizationScale(name)
            }
            scales = found
        }
        defer { releasePages(of: v) }
        return try data.withUnsafeBytes { raw in
            let base = raw.baseAddress! + v.offset
            return try Tensor(shape: shape) { out in
                let n = out.count
                switch v.dataType {
                case .float32:
                    for i in 0..<n { out[i] = base.loadUnaligned(fromByteOffset: 4 * i, as: Float.self) }
                case .float16:
                    HalfConversion.halfToFloat(base, out.baseAddress!, count: n)
                case .bfloat16:
                    HalfConversion.bfloat16ToFloat(base, out.baseAddress!, count: n)
                case .int8, .int16:
                    // CTranslate2's dequantization: q · (1 / scale).
                    let inverses = scales!.map { 1 / $0 }
                    let rowLength = n / max(inverses.count, 1)
                    for i in 0..<n {
                        let q = v.dataType == .int8
                            ? Float(base.load(fromByteOffset: i, as: Int8.self))
                            : Float(base.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self))
                        out[i] = q * inverses[i / rowLength]
                    }
                case .int32:
                    throw ModelError.unsupportedDataType(name, Int(v.dataType.rawValue))
                }
            }
        }
    }
}

/// Bounds-checked little-endian reads; running past the end means the file is truncated.
private struct Reader {
    let data: Data
    let url: URL
    var offset = 0

    mutating func need(_ n: Int) throws {
        if offset + n > data.count {
            throw ModelError.truncated(url, expectedBytes: offset + n, actualBytes: data.count)
        }
    }

    mutating func u8() throws -> UInt8 {
        try need(1)
        defer { offset += 1 }
        return data.withUnsafeBytes { $0.load(fromByteOffset: offset, as: UInt8.self) }
    }

    mutating func u16() throws -> UInt16 {
        try need(2)
        defer { offset += 2 }
        return data.withUnsafeBytes { UInt16(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
    }

    mutating func u32() throws -> UInt32 {
        try need(4)
        defer { offset += 4 }
        return data.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    }

    mutating func skip(_ n: Int) throws {
        try need(n)
        offset += n
    }

    mutating func name() throws -> String {
        let length = Int(try u16())
        try need(length)
        let bytes = data[data.startIndex + offset ..< data.startIndex + offset + max(length - 1, 0)]
        offset += length
        return String(decoding: bytes, as: UTF8.self)
    }
}
