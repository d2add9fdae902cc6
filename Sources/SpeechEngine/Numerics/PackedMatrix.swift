#if canImport(CDNNL)
import CDNNL
import Foundation
import Synchronization

/// A linear layer's weight `W[rows × columns]` (`[out, in]`) and bias, packed once at load into the layout oneDNN's
/// kernel for this CPU wants, in fp32, bf16 or int8; multiplies fp32 rows: `Y = X · Wᵀ + b`.
///
/// Matmul primitives are created once per shape (rows of X, part of W, thread slot) and reused. Row counts from 9 to
/// 256 (the decoder's prompt and word-timing passes, as many rows as tokens) are rounded up to a few buckets
/// (`plannedRows`) and run on rows padded with copies of the last one, so a long stream plans a bounded set of
/// primitives rather than one per token count (723 shapes and their scratchpads over an hour of live audio before).
/// With blocked layouts (AVX-512) a row's result does not depend on the other rows, so padding changes no bit; oneDNN's
/// gemm-based fp32 kernels (AVX2) give a row other last bits among another number of rows, so results are a function
/// of the inputs and their row count (`PackedMatrixTests`). Each runs on its caller's thread; the engine's `Parallel`
/// splits large products: by fixed blocks of rows of X (the encoder's frames, `BLAS.rowBlock`) or, for weights too
/// large for one core's share of bandwidth (the output projection), by parts of W packed separately.
///
/// `@unchecked Sendable`: the packed weights, scales and bias are written in `init` only; the product cache is
/// guarded by `productsLock`; each cached product's reusable memory objects by its `busy` flag (see `Product`).
final class PackedMatrix: @unchecked Sendable {
    enum Precision: Sendable { case float32, bfloat16, int8 }

    let precision: Precision
    let rows: Int, columns: Int
    private let bias: Tensor?
    /// int8: per row of W, CTranslate2's `weight_scale` (`w ≈ q / scale`), applied after the int32 product.
    private let weightScales: UnsafeMutablePointer<Float>?
    private let parts: [Part]
    /// Guards `products`. A pthread mutex (`NSLock`) rather than `Synchronization.Mutex`: both threads of a split
    /// product look here at once, and a contended `Mutex` on Linux is handed over by the kernel (a priority-inheriting
    /// futex), a hand-over ThreadSanitizer cannot see, so it reported every access under it as a race.
    private let productsLock = NSLock()
    private var products: [Key: Product] = [:]
    /// Whether oneDNN's kernel here takes W as it is (no blocked layout: its gemm-based kernels on AVX2). Products of
    /// few rows then run transposed (`multiplyTransposed`).
    let plain: Bool
    /// int8 on oneDNN's gemm-based kernels (AVX2 without VNNI): per row of W, `128 · Σ W[r, :]`. The activations go in
    /// shifted to u8 (`q + 128`) and this is taken off the int32 sums, which is what oneDNN's s8 × s8 product does
    /// inside on every call (shifting a copy of the rows and summing W's rows again): the same sums bit for bit,
    /// saturation included (vpmaddubsw), for a quarter less time (BENCHMARKS.md, 2026-11-27 07:15). nil elsewhere:
    /// blocked int8 layouts carry their compensation from the reorder at load.
    private let shiftCompensation: UnsafeMutablePointer<Int32>?
    /// Whether a row's result depends on how many rows are multiplied with it: oneDNN's gemm-based fp32 and bf16
    /// kernels (AVX2) block a product by its shape, so a row comes out with other last bits among another number of
    /// rows. Such products run in blocks of `BLAS.rowBlock` rows, whatever the threads. Blocked layouts (AVX-512) and
    /// int8's exact int32 sums give every row alone, and are split between threads as they come.
    /// bf16 with AMX too: a product of a few rows runs on AVX-512 kernels and one of many on AMX tiles, so a row alone
    /// came out with other last bits than among 260 (`PackedMatrixTests`, an Intel Xeon with AMX, 2026-12-01).
    var rowsShareBits: Bool { (plain && precision != .int8) || (precision == .bfloat16 && MatrixBackend.hasAMX) }
    /// Whether int8 products sum u8 × s8 pairs in int16 with saturation first (AVX2 without VNNI: `vpmaddubsw`); the
    /// weights are then kept within ±64 (halved at load) so that no pair reaches it.
    var saturatesPairs: Bool { shiftCompensation != nil }
    /// Whether row counts are rounded up to `plannedRows` (false: every count planned as it is; tests compare).
    private let bucketsRows: Bool

    /// Rows `range` of W, packed for the kernel, with their oneDNN memory object (shared read-only by products).
    private struct Part {
        let range: Range<Int>
        let storage: UnsafeMutableRawPointer
        let layout: dnnl_memory_desc_t
        let memory: dnnl_memory_t
        let bias: dnnl_memory_t?
    }

    private struct Key: Hashable {
        let inputRows: Int, part: Int, slot: Int, accumulate: Bool
        var transposed = false
    }

    /// fp32 weights, kept as fp32 or rounded to bf16; `parts` > 1 splits W's rows into separately packed parts.
    convenience init(weights: UnsafePointer<Float>, rows: Int, columns: Int, bias: Tensor?, precision: Precision, parts: Int,
                     bucketsRows: Bool = true) {
        switch precision {
        case .float32:
            self.init(rows: rows, columns: columns, bias: bias, precision: .float32, scales: nil, parts: parts,
                      source: UnsafeRawPointer(weights), bucketsRows: bucketsRows)
        case .bfloat16:
            let halves = UnsafeMutablePointer<UInt16>.allocate(capacity: rows * columns)
            defer { halves.deallocate() }
            RowQuantization.roundToBFloat16(weights, into: halves, count: rows * columns)
            self.init(rows: rows, columns: columns, bias: bias, precision: .bfloat16, scales: nil, parts: parts,
                      source: UnsafeRawPointer(halves), bucketsRows: bucketsRows)
        case .int8:
            let values = UnsafeMutablePointer<Int8>.allocate(capacity: rows * columns)
            let scales = UnsafeMutablePointer<Float>.allocate(capacity: rows)
            defer { values.deallocate(); scales.deallocate() }
            RowQuantization.quantize(weights, rows: 0..<rows, columns: columns, into: values, scales: scales,
                                     activations: false)
            self.init(rows: rows, columns: columns, bias: bias, precision: .int8, scales: scales, parts: parts,
                      source: UnsafeRawPointer(values), bucketsRows: bucketsRows)
        }
    }

    /// int8 weights with CTranslate2's per-row scales (`w ≈ q / scales[r]`).
    convenience init(int8 weights: UnsafePointer<Int8>, scales: UnsafePointer<Float>, rows: Int, columns: Int,
                     bias: Tensor?, parts: Int) {
        self.init(rows: rows, columns: columns, bias: bias, precision: .int8, scales: scales, parts: parts,
                  source: UnsafeRawPointer(weights))
    }

    private init(rows: Int, columns: Int, bias: Tensor?, precision: Precision, scales: UnsafePointer<Float>?, parts: Int,
                 source: UnsafeRawPointer, bucketsRows: Bool = true) {
        MatrixBackend.prepare
        self.bucketsRows = bucketsRows
        self.rows = rows
        self.columns = columns
        self.bias = bias
        self.precision = precision
        let type = Self.weightType(precision), elementBytes = precision == .int8 ? 1 : precision == .bfloat16 ? 2 : 4
        // int8 on gemm-based kernels (AVX2 without VNNI) sums u8 × s8 pairs in int16 with saturation: with the rows
        // shifted to u8 (up to 255), weights of ±64 at most keep every pair within it (2 · 255 · 64 = 32640). The
        // weights are halved (rounded away from zero) and their scales with them: clipped pairs had cost tiny.en
        // 1.5 WER points on a 20-minute recording (7 words in a row lost) on a Zen 3 EPYC; 7 bits cost words on other
        // sets (BENCHMARKS.md, 2026-11-28 12:10). 8 bits without clipping would need the sign trick of `Int8Matrix`.
        let halved: UnsafeMutablePointer<Int8>?
        if precision == .int8 && Self.takesPlainWeights(rows: rows, columns: columns, hasBias: bias != nil) {
            let values = source.assumingMemoryBound(to: Int8.self), count = rows * columns
            let copy = UnsafeMutablePointer<Int8>.allocate(capacity: count)
            for i in 0..<count { copy[i] = Int8((Int16(values[i]) + (values[i] < 0 ? -1 : 1)) / 2) }
            halved = copy
        } else {
            halved = nil
        }
        defer { halved?.deallocate() }
        let source = halved.map { UnsafeRawPointer($0) } ?? source
        if let scales {
            let copy = UnsafeMutablePointer<Float>.allocate(capacity: rows)
            for r in 0..<rows { copy[r] = halved == nil ? scales[r] : scales[r] / 2 }
            weightScales = copy
        } else {
            weightScales = nil
        }
        let count = max(1, min(parts, rows / 64))
        var packed: [Part] = []
        var isPlain = false
        for p in 0..<count {
            let range = rows * p / count ..< rows * (p + 1) / count
            // W's rows are the product's columns: as the matmul's `columns × n` weights, element (k, j) is at j·columns + k.
            let plain = OneDNN.matrix(columns, range.count, type, rowStride: 1, columnStride: columns)
            let probe = Self.describe(inputRows: 128, outputs: range.count, inputs: columns, totalOutputs: rows,
                                      precision: precision, weights: OneDNN.anyMatrix(columns, range.count, type),
                                      hasBias: bias != nil, accumulate: false)
            var layout = dnnl_primitive_desc_query_md(probe, dnnl_query_weights_md, 0)!.pointee
            dnnl_primitive_desc_destroy(probe)
            if Self.isPlain(layout) {
                // Not blocked: keep W's own layout, which the transposed products of few rows need.
                layout = plain
                isPlain = true
            }
            let bytes = dnnl_memory_desc_get_size(&layout)
            let storage = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 64), alignment: 64)
            OneDNN.reorder(source + range.lowerBound * columns * elementBytes, from: plain, into: storage, to: layout)
            let biasMemory = bias.map {
                OneDNN.memory(OneDNN.matrix(1, range.count, dnnl_f32),
                              UnsafeMutableRawPointer(mutating: $0.pointer + range.lowerBound))
            }
            packed.append(Part(range: range, storage: storage, layout: layout,
                               memory: OneDNN.memory(layout, storage), bias: precision == .int8 ? nil : biasMemory))
        }
        self.parts = packed
        self.plain = isPlain
        if precision == .int8 && isPlain {
            let values = source.assumingMemoryBound(to: Int8.self)
            let sums = UnsafeMutablePointer<Int32>.allocate(capacity: rows)
            for r in 0..<rows {
                var sum: Int32 = 0
                for k in 0..<columns { sum &+= Int32(values[r * columns + k]) }
                sums[r] = 128 &* sum
            }
            shiftCompensation = sums
        } else {
            shiftCompensation = nil
        }
    }

    deinit {
        for part in parts {
            dnnl_memory_destroy(part.memory)
            if let b = part.bias { dnnl_memory_destroy(b) }
            part.storage.deallocate()
        }
        weightScales?.deallocate()
        shiftCompensation?.deallocate()
    }

    /// Whether oneDNN's int8 matmul here takes the weights in their own layout (its gemm-based kernels: AVX2 without
    /// VNNI), probed on a product of this shape.
    private static func takesPlainWeights(rows: Int, columns: Int, hasBias: Bool) -> Bool {
        let probe = describe(inputRows: 128, outputs: rows, inputs: columns, totalOutputs: rows, precision: .int8,
                             weights: OneDNN.anyMatrix(columns, rows, dnnl_s8), hasBias: hasBias, accumulate: false)
        defer { dnnl_primitive_desc_destroy(probe) }
        return isPlain(dnnl_primitive_desc_query_md(probe, dnnl_query_weights_md, 0)!.pointee)
    }

    /// Whether `layout` is a matrix's own (strided, not blocked), as gemm-based kernels take their weights.
    private static func isPlain(_ layout: dnnl_memory_desc_t) -> Bool {
        layout.format_kind == dnnl_blocked && layout.format_desc.blocking.inner_nblks == 0
    }

    private static func weightType(_ precision: Precision) -> dnnl_data_type_t {
        switch precision {
        case .float32: dnnl_f32
        case .bfloat16: dnnl_bf16
        case .int8: dnnl_s8
        }
    }

    /// The matmul `[inputRows × inputs] · [inputs × outputs]` into rows `totalOutputs` apart: fp32 with the bias and
    /// (with `accumulate`) the destination's previous values added by oneDNN, or for int8 the exact int32 sums, which
    /// `RowQuantization.rescale` takes back to fp32 as CTranslate2 does.
    /// `shiftedSource`: int8 rows shifted to u8 (`shiftCompensation`).
    private static func describe(inputRows: Int, outputs: Int, inputs: Int, totalOutputs: Int, precision: Precision,
                                 weights: dnnl_memory_desc_t, hasBias: Bool, accumulate: Bool,
                                 shiftedSource: Bool = false) -> dnnl_primitive_desc_t {
        OneDNN.useCallerThreadOnly()
        var source = OneDNN.matrix(inputRows, inputs, shiftedSource ? dnnl_u8 : weightType(precision))
        var weights = weights
        var destination = OneDNN.matrix(inputRows, outputs, precision == .int8 ? dnnl_s32 : dnnl_f32,
                                        rowStride: totalOutputs)
        var biasLayout = OneDNN.matrix(1, outputs, dnnl_f32)
        var desc = dnnl_matmul_desc_t()
        let withBias = hasBias && precision != .int8
        OneDNN.check(withBias ? dnnl_matmul_desc_init(&desc, &source, &weights, &biasLayout, &destination)
                              : dnnl_matmul_desc_init(&desc, &source, &weights, nil, &destination), "describing a matmul")
        var attributes: dnnl_primitive_attr_t?
        OneDNN.check(dnnl_primitive_attr_create(&attributes), "creating attributes")
        defer { dnnl_primitive_attr_destroy(attributes) }
        OneDNN.check(dnnl_primitive_attr_set_scratchpad_mode(attributes, dnnl_scratchpad_mode_user), "scratchpad mode")
        if accumulate {
            var postOps: dnnl_post_ops_t?
            OneDNN.check(dnnl_post_ops_create(&postOps), "creating post-ops")
            defer { dnnl_post_ops_destroy(postOps) }
            OneDNN.check(dnnl_post_ops_append_sum(postOps, 1), "adding a sum post-op")
            OneDNN.check(dnnl_primitive_attr_set_post_ops(attributes, postOps), "setting post-ops")
        }
        var pd: dnnl_primitive_desc_t?
        OneDNN.check(withUnsafePointer(to: &desc) { dnnl_primitive_desc_create(&pd, $0, attributes, OneDNN.engine, nil) },
                     "creating a \(inputRows)×\(inputs)×\(outputs) matmul")
        return pd!
    }

    /// The fp32 matmul `W[outputs × inputs] · Xᵀ[inputs × inputRows]` into `outputs × inputRows` (W as the source,
    /// the rows of X as the weights, read in place: element (k, m) of Xᵀ is X's m·inputs + k).
    private static func describeTransposed(inputRows: Int, outputs: Int, inputs: Int) -> dnnl_primitive_desc_t {
        OneDNN.useCallerThreadOnly()
        var source = OneDNN.matrix(outputs, inputs, dnnl_f32)
        var weights = OneDNN.matrix(inputs, inputRows, dnnl_f32, rowStride: 1, columnStride: inputs)
        var destination = OneDNN.matrix(outputs, inputRows, dnnl_f32)
        var desc = dnnl_matmul_desc_t()
        OneDNN.check(dnnl_matmul_desc_init(&desc, &source, &weights, nil, &destination), "describing a matmul")
        var attributes: dnnl_primitive_attr_t?
        OneDNN.check(dnnl_primitive_attr_create(&attributes), "creating attributes")
        defer { dnnl_primitive_attr_destroy(attributes) }
        OneDNN.check(dnnl_primitive_attr_set_scratchpad_mode(attributes, dnnl_scratchpad_mode_user), "scratchpad mode")
        var pd: dnnl_primitive_desc_t?
        OneDNN.check(withUnsafePointer(to: &desc) { dnnl_primitive_desc_create(&pd, $0, attributes, OneDNN.engine, nil) },
                     "creating a \(outputs)×\(inputs)×\(inputRows) matmul")
        return pd!
    }

    /// `Y[r, :] = X[r, :] · Wᵀ + b` for the `inputRows` rows of X (`inputRows × columns`) into Y
    /// (`inputRows × rows`), or `Y +=` with `accumulate`.
    func multiply(_ x: UnsafePointer<Float>, rows inputRows: Int, into y: UnsafeMutablePointer<Float>,
                  accumulate: Bool = false, scratch: Buffer, parallel: Parallel = .serial) {
        guard inputRows > 0 else { return }
        if plain && precision == .float32 && inputRows <= Self.transposedRows && rows * columns >= 1 << 20 {
            multiplyTransposed(x, rows: inputRows, into: y, accumulate: accumulate, scratch: scratch, parallel: parallel)
            return
        }
        let planned = bucketsRows ? Self.plannedRows(inputRows) : inputRows
        let k = columns, n = rows
        let own = scratchFloats(rows: planned)
        guard planned > inputRows else {
            multiplyPlanned(x, rows: inputRows, into: y, accumulate: accumulate, space: scratch.reserve(own),
                            parallel: parallel)
            return
        }
        // Padded: X's rows then copies of its last row; Y's rows (its values, to accumulate onto) then spare rows.
        let space = scratch.reserve(own + planned * (k + n))
        let paddedX = space + own, paddedY = paddedX + planned * k
        paddedX.update(from: x, count: inputRows * k)
        for r in inputRows..<planned { (paddedX + r * k).update(from: x + (inputRows - 1) * k, count: k) }
        if accumulate { paddedY.update(from: y, count: inputRows * n) }
        multiplyPlanned(paddedX, rows: planned, into: paddedY, accumulate: accumulate, space: space, parallel: parallel)
        y.update(from: paddedY, count: inputRows * n)
    }

    /// The row count a product of `inputRows` rows runs with: up to 8 (beams, single tokens) and above 256 (the
    /// encoder's frames, in whole seconds) as it is; from 9 to 64 rounded up to a multiple of 8, to 256 of 16 (27
    /// shapes in all up to 256 rows, where a live stream met one per token count).
    static func plannedRows(_ inputRows: Int) -> Int {
        switch inputRows {
        case ...8, 257...: inputRows
        case ...64: (inputRows + 7) / 8 * 8
        default: (inputRows + 15) / 16 * 16
        }
    }

    /// Floats of scratch a product of `inputRows` rows uses: int8: quantized rows, row scales, int32 products;
    /// bf16: rounded rows.
    private func scratchFloats(rows inputRows: Int) -> Int {
        switch precision {
        case .float32: 1
        case .bfloat16: (inputRows * columns + 1) / 2
        case .int8: (inputRows * columns + 3) / 4 + inputRows + inputRows * rows
        }
    }

    /// `multiply` with `inputRows` as planned, in `space` (`scratchFloats(rows: inputRows)` floats).
    private func multiplyPlanned(_ x: UnsafePointer<Float>, rows inputRows: Int, into y: UnsafeMutablePointer<Float>,
                                 accumulate: Bool, space: UnsafeMutablePointer<Float>, parallel: Parallel) {
        let k = columns, n = rows
        let quantizedFloats = (inputRows * k + 3) / 4
        let rowScales = space + quantizedFloats
        let products = UnsafeMutableRawPointer(rowScales + inputRows).assumingMemoryBound(to: Int32.self)
        let source: UnsafeRawPointer
        let rowSlices = inputRows >= 2 * Self.minimumRowsPerSlice ? parallel : .serial
        switch precision {
        case .float32:
            source = UnsafeRawPointer(x)
        case .bfloat16:
            let target = UnsafeMutableRawPointer(space).assumingMemoryBound(to: UInt16.self)
            rowSlices.forEachSlice(of: inputRows, minimumSlice: Self.minimumRowsPerSlice) { _, r in
                RowQuantization.roundToBFloat16(x + r.lowerBound * k, into: target + r.lowerBound * k, count: r.count * k)
            }
            source = UnsafeRawPointer(target)
        case .int8:
            let target = UnsafeMutableRawPointer(space).assumingMemoryBound(to: Int8.self)
            let shifted = shiftCompensation != nil
            rowSlices.forEachSlice(of: inputRows, minimumSlice: Self.minimumRowsPerSlice) { _, r in
                RowQuantization.quantize(x, rows: r, columns: k, into: target, scales: rowScales, activations: true)
                if shifted { RowQuantization.shiftToUnsigned(target + r.lowerBound * k, count: r.count * k) }
            }
            source = UnsafeRawPointer(target)
        }
        let elementBytes = precision == .int8 ? 1 : precision == .bfloat16 ? 2 : 4
        let int8 = precision == .int8
        let run = { (part: Int, r: Range<Int>, slot: Int) in
            let p = self.parts[part]
            let key = Key(inputRows: r.count, part: part, slot: slot, accumulate: accumulate && !int8)
            let offset = r.lowerBound * n + p.range.lowerBound
            let target = int8 ? UnsafeMutableRawPointer(products + offset) : UnsafeMutableRawPointer(y + offset)
            self.product(for: key).execute(source: source + r.lowerBound * k * elementBytes, destination: target)
            if let compensation = self.shiftCompensation {
                RowQuantization.subtract(compensation, from: products, rows: r, columns: p.range, stride: n)
            }
            if int8, let weightScales = self.weightScales {
                RowQuantization.rescale(products, rows: r, columns: p.range, stride: n, rowScales: rowScales,
                                        columnScales: weightScales, bias: self.bias?.pointer, into: y,
                                        accumulate: accumulate)
            }
        }
        if rowsShareBits && inputRows > BLAS.rowBlock {
            // Blocks of a fixed number of rows, whatever the threads: the blocks, not the thread count, decide the calls.
            let blocks = (inputRows + BLAS.rowBlock - 1) / BLAS.rowBlock
            parallel.forEachSlice(of: blocks, minimumSlice: 1) { slot, blockRange in
                for block in blockRange {
                    let r = block * BLAS.rowBlock ..< Swift.min(inputRows, (block + 1) * BLAS.rowBlock)
                    for part in self.parts.indices { run(part, r, slot) }
                }
            }
        } else if !rowsShareBits && rowSlices.threads > 1 {
            rowSlices.forEachSlice(of: inputRows, minimumSlice: Self.minimumRowsPerSlice) { slot, r in
                for part in self.parts.indices { run(part, r, slot) }
            }
        } else {
            parallel.forEachSlice(of: parts.count, minimumSlice: 1) { slot, partRange in
                for part in partRange { run(part, 0..<inputRows, 0) }
            }
        }
    }

    /// Up to this many rows of X, products with W in its own layout run transposed (W of at least 1 M weights; on
    /// smaller ones the transposed product measured 10 % slower).
    private static let transposedRows = 8

    /// `Yᵀ = W · Xᵀ` through oneDNN with W as the many-row operand and the few rows of X as the small one, then
    /// transposed into Y with the bias: oneDNN's gemm-based kernels copy the second operand into a packed buffer on
    /// every call, which for W (the output projection's 80 MB) cost more than the product (measured 2× on AVX2).
    private func multiplyTransposed(_ x: UnsafePointer<Float>, rows inputRows: Int, into y: UnsafeMutablePointer<Float>,
                                    accumulate: Bool, scratch: Buffer, parallel: Parallel) {
        let n = rows
        let transposed = scratch.reserve(n * inputRows)
        parallel.forEachSlice(of: parts.count, minimumSlice: 1) { slot, partRange in
            for part in partRange {
                let p = self.parts[part]
                let key = Key(inputRows: inputRows, part: part, slot: 0, accumulate: false, transposed: true)
                let target = transposed + p.range.lowerBound * inputRows
                self.product(for: key).execute(source: UnsafeRawPointer(p.storage), destination: target,
                                               weights: UnsafeRawPointer(x))
                for r in p.range {
                    let b = self.bias?.pointer[r] ?? 0
                    for m in 0..<inputRows {
                        let v = transposed[r * inputRows + m] + b
                        y[m * n + r] = accumulate ? y[m * n + r] + v : v
                    }
                }
            }
        }
    }

    /// Rows of X below which a product, or quantizing or rounding them, is not split between threads.
    private static let minimumRowsPerSlice = 64

    private func product(for key: Key) -> Product {
        if let cached = productsLock.withLock({ products[key] }) { return cached }
        let p = parts[key.part]
        if key.transposed {
            let made = Product(Self.describeTransposed(inputRows: key.inputRows, outputs: p.range.count, inputs: columns),
                               weights: nil, bias: nil)
            return cached(made, for: key)
        }
        let pd = Self.describe(inputRows: key.inputRows, outputs: p.range.count, inputs: columns, totalOutputs: rows,
                               precision: precision, weights: p.layout, hasBias: bias != nil, accumulate: key.accumulate,
                               shiftedSource: shiftCompensation != nil)
        let made = Product(pd, weights: p.memory, bias: p.bias)
        return cached(made, for: key)
    }

    /// The product cached for `key`: `made`, unless another thread cached one first.
    private func cached(_ made: Product, for key: Key) -> Product {
        productsLock.withLock {
            if let existing = products[key] { return existing }
            products[key] = made
            return made
        }
    }
}

/// One matmul primitive with reusable memory objects, a stream and scratchpad for its arguments. The weights are a
/// packed part's shared memory object, or (transposed products, `weights` nil) set on each call like the source.
///
/// `@unchecked Sendable`: oneDNN primitives may run concurrently; the memory objects, stream and scratchpad are
/// used only by the thread that won `busy` (an atomic exchange), and any other thread running the same product at
/// the same time builds its own temporary ones.
private final class Product: @unchecked Sendable {
    let primitive: dnnl_primitive_t
    let sourceLayout: dnnl_memory_desc_t, destinationLayout: dnnl_memory_desc_t, scratchpadLayout: dnnl_memory_desc_t
    let weights: dnnl_memory_t, bias: dnnl_memory_t?
    /// Whether `weights` belongs to this product (its handle set per call) rather than to a packed part.
    let ownsWeights: Bool
    let weightsLayout: dnnl_memory_desc_t
    let source: dnnl_memory_t, destination: dnnl_memory_t, scratchpad: dnnl_memory_t
    let scratchpadStorage: UnsafeMutableRawPointer
    let stream: dnnl_stream_t
    let arguments: UnsafeMutablePointer<dnnl_exec_arg_t>, argumentCount: Int32
    let busy = Atomic<Bool>(false)

    /// oneDNN's implementation for a new product shape, at debug level (what `ONEDNN_VERBOSE` would print).
    private static func logKernel(_ pd: dnnl_primitive_desc_t, source: dnnl_memory_desc_t, weights: dnnl_memory_desc_t) {
        EngineLog.debugOnce({
            let name = OneDNN.implementationName(pd)
            let type = weights.data_type == dnnl_s8 ? "int8" : weights.data_type == dnnl_bf16 ? "bf16" : "fp32"
            return "oneDNN matmul \(source.dims.0)×\(source.dims.1) · \(weights.dims.0)×\(weights.dims.1) \(type): \(name)"
        }())
    }

    init(_ pd: dnnl_primitive_desc_t, weights: dnnl_memory_t?, bias: dnnl_memory_t?) {
        defer { dnnl_primitive_desc_destroy(pd) }
        var primitive: dnnl_primitive_t?
        OneDNN.check(dnnl_primitive_create(&primitive, pd), "creating a matmul")
        EngineWork.didUse(.primitive)
        self.primitive = primitive!
        sourceLayout = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0)!.pointee
        destinationLayout = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0)!.pointee
        var scratch = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0)!.pointee
        scratchpadLayout = scratch
        scratchpadStorage = .allocate(byteCount: max(dnnl_memory_desc_get_size(&scratch), 64), alignment: 64)
        weightsLayout = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0)!.pointee
        Self.logKernel(pd, source: sourceLayout, weights: weightsLayout)
        ownsWeights = weights == nil
        let weights = weights ?? OneDNN.memory(weightsLayout, nil)
        self.weights = weights
        self.bias = bias
        source = OneDNN.memory(sourceLayout, nil)
        destination = OneDNN.memory(destinationLayout, nil)
        scratchpad = OneDNN.memory(scratchpadLayout, scratchpadStorage)
        var stream: dnnl_stream_t?
        OneDNN.check(dnnl_stream_create(&stream, OneDNN.engine, UInt32(dnnl_stream_default_flags.rawValue)), "creating a stream")
        self.stream = stream!
        arguments = .allocate(capacity: 5)
        argumentCount = Product.fill(arguments, source: source, weights: weights, bias: bias, destination: destination,
                                     scratchpad: scratchpad)
    }

    deinit {
        dnnl_primitive_destroy(primitive)
        dnnl_memory_destroy(source)
        dnnl_memory_destroy(destination)
        dnnl_memory_destroy(scratchpad)
        dnnl_stream_destroy(stream)
        if ownsWeights { dnnl_memory_destroy(weights) }
        scratchpadStorage.deallocate()
        arguments.deallocate()
    }

    private static func fill(_ arguments: UnsafeMutablePointer<dnnl_exec_arg_t>, source: dnnl_memory_t,
                             weights: dnnl_memory_t, bias: dnnl_memory_t?, destination: dnnl_memory_t,
                             scratchpad: dnnl_memory_t) -> Int32 {
        arguments[0] = dnnl_exec_arg_t(arg: openspeech_dnnl_arg_src, memory: source)
        arguments[1] = dnnl_exec_arg_t(arg: openspeech_dnnl_arg_weights, memory: weights)
        arguments[2] = dnnl_exec_arg_t(arg: openspeech_dnnl_arg_dst, memory: destination)
        arguments[3] = dnnl_exec_arg_t(arg: openspeech_dnnl_arg_scratchpad, memory: scratchpad)
        guard let bias else { return 4 }
        arguments[4] = dnnl_exec_arg_t(arg: openspeech_dnnl_arg_bias, memory: bias)
        return 5
    }

    /// Runs the product on the calling thread (`weights`: the per-call weights of a product that owns them).
    func execute(source input: UnsafeRawPointer, destination output: UnsafeMutableRawPointer,
                 weights perCall: UnsafeRawPointer? = nil) {
        OneDNN.useCallerThreadOnly()
        if busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            if ownsWeights { dnnl_memory_set_data_handle(weights, UnsafeMutableRawPointer(mutating: perCall)) }
            dnnl_memory_set_data_handle(source, UnsafeMutableRawPointer(mutating: input))
            dnnl_memory_set_data_handle(destination, UnsafeMutableRawPointer(output))
            OneDNN.check(dnnl_primitive_execute(primitive, stream, argumentCount, arguments), "running a matmul")
            busy.store(false, ordering: .releasing)
            return
        }
        // Another thread runs this product now: temporary objects (rare: only concurrent sessions on one model).
        let scratchStorage = UnsafeMutableRawPointer.allocate(byteCount: 64 + {
            var layout = scratchpadLayout
            return dnnl_memory_desc_get_size(&layout)
        }(), alignment: 64)
        let input = OneDNN.memory(sourceLayout, UnsafeMutableRawPointer(mutating: input))
        let out = OneDNN.memory(destinationLayout, UnsafeMutableRawPointer(output))
        let pad = OneDNN.memory(scratchpadLayout, scratchStorage)
        var stream: dnnl_stream_t?
        OneDNN.check(dnnl_stream_create(&stream, OneDNN.engine, UInt32(dnnl_stream_default_flags.rawValue)), "creating a stream")
        let temporaryWeights = ownsWeights ? OneDNN.memory(weightsLayout, UnsafeMutableRawPointer(mutating: perCall)) : weights
        defer { if ownsWeights { dnnl_memory_destroy(temporaryWeights) } }
        let args = UnsafeMutablePointer<dnnl_exec_arg_t>.allocate(capacity: 5)
        let count = Product.fill(args, source: input, weights: temporaryWeights, bias: bias, destination: out, scratchpad: pad)
        OneDNN.check(dnnl_primitive_execute(primitive, stream, count, args), "running a matmul")
        args.deallocate()
        dnnl_stream_destroy(stream)
        dnnl_memory_destroy(input); dnnl_memory_destroy(out); dnnl_memory_destroy(pad)
        scratchStorage.deallocate()
    }
}
#endif
