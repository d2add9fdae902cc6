/// An fp32 tensor in row-major order, owning its memory. Weights are created once at load and never
/// written afterwards.
///
/// `@unchecked Sendable`: the storage is allocated and filled in `init` (before the instance can be
/// shared) and only read after that; `pointer` is an `UnsafePointer`, so no API writes it later.
public final class Tensor: @unchecked Sendable {
    public let shape: [Int]
    public let count: Int
    let pointer: UnsafePointer<Float>

    /// A tensor filled by `fill`, which receives the uninitialised storage of `shape`'s size.
    init(shape: [Int], fill: (UnsafeMutableBufferPointer<Float>) throws -> Void) rethrows {
        let count = shape.reduce(1, *)
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1))
        do {
            try fill(UnsafeMutableBufferPointer(start: storage, count: count))
        } catch {
            storage.deallocate()
            throw error
        }
        self.shape = shape
        self.count = count
        self.pointer = UnsafePointer(storage)
    }

    convenience init(shape: [Int], values: [Float]) {
        precondition(values.count == shape.reduce(1, *))
        self.init(shape: shape) { buffer in _ = buffer.initialize(from: values) }
    }

    deinit { UnsafeMutablePointer(mutating: pointer).deallocate() }

    /// The row `index` of a matrix.
    @inline(__always) func row(_ index: Int) -> UnsafePointer<Float> { pointer + index * shape[shape.count - 1] }

    var array: [Float] { Array(UnsafeBufferPointer(start: pointer, count: count)) }
}
