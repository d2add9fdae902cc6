import Foundation
import Testing
@testable import SpeechEngine

/// CAM++'s 2-D convolutions through oneDNN's direct kernels against the product over gathered taps they replaced:
/// the front's shapes (one or 32 channels in, kernel 3 or 1, strides 1 and 2 along the height), the same values to
/// float32 rounding, the same bits from two threads at once as from one.
@Suite("2-D convolutions")
struct Convolution2DTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let inputs: Int, kernel: Int, height: Int, stride: Int, relu: Bool
        var testDescription: String { "\(inputs)→32, \(kernel)×\(kernel), \(height)×148, stride \(stride)\(relu ? ", ReLU" : "")" }
    }

    @Test(arguments: [Case(inputs: 1, kernel: 3, height: 80, stride: 1, relu: true),
                      Case(inputs: 32, kernel: 3, height: 80, stride: 2, relu: true),
                      Case(inputs: 32, kernel: 1, height: 80, stride: 2, relu: false),
                      Case(inputs: 32, kernel: 3, height: 20, stride: 1, relu: false),
                      Case(inputs: 32, kernel: 3, height: 20, stride: 2, relu: true)])
    func matchesTheGatheredProduct(_ shape: Case) async throws {
        let outputs = 32, width = 148
        let weights = Tensor(shape: [outputs, shape.kernel * shape.kernel * shape.inputs],
                             values: ProductKernelTests.values(outputs * shape.kernel * shape.kernel * shape.inputs, seed: 7))
        let bias = Tensor(shape: [outputs], values: ProductKernelTests.values(outputs, seed: 8))
        let convolution = Convolution2D(weights: weights, bias: bias, kernel: shape.kernel)
        let image = ProductKernelTests.values(shape.height * width * shape.inputs, seed: 9)
        let count = convolution.outputHeight(shape.height, stride: shape.stride) * width * outputs

        var expected = [Float](repeating: 0, count: count)
        image.withUnsafeBufferPointer { input in
            expected.withUnsafeMutableBufferPointer { output in
                convolution.gatheredProduct(input.baseAddress!, height: shape.height, width: width, stride: shape.stride,
                                            into: output.baseAddress!, cols: Buffer())
                if shape.relu { for i in output.indices { output[i] = max(0, output[i]) } }
            }
        }
        let run = { @Sendable () -> [Float] in
            var result = [Float](repeating: .nan, count: count)
            image.withUnsafeBufferPointer { input in
                result.withUnsafeMutableBufferPointer { output in
                    convolution.apply(input.baseAddress!, height: shape.height, width: width, stride: shape.stride,
                                      relu: shape.relu, into: output.baseAddress!, scratch: Buffer())
                }
            }
            return result
        }
        let alone = run()
        let largest = zip(alone, expected).map { abs($0 - $1) / max(1, abs($1)) }.max()!
        #expect(largest < 1e-5, "largest relative difference \(largest)")
        #expect(!alone.contains { $0.isNaN })
        async let first = Task.detached(operation: run).value
        async let second = Task.detached(operation: run).value
        let (a, b) = await (first, second)
        #expect(a == alone && b == alone)
    }
}
