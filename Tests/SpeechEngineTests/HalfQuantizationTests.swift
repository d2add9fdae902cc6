import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

/// int8 weights quantized straight from a model file's fp16 values (`ModelFile.withQuantizedHalfMatrix`, what the
/// int8 load packs): the very bytes and scales the quantization of the fp32 copy gave, on every matrix of
/// whisper-base that the int8 load quantizes, so the faster load changes no result.
@Suite("int8 from fp16 at load")
struct HalfQuantizationTests {
    @Test("every int8 matrix of whisper-base quantized from fp16: the same bytes and scales as from its fp32 copy")
    func sameAsFromFloat() async throws {
        let directory = try await TestModels.directory(for: "whisper-base")
        let file = try ModelFile(url: directory.appendingPathComponent("model.bin"))
        let names = file.variables.keys.filter { name in
            name.hasSuffix("/weight") && !name.contains("conv") && !name.contains("embeddings")
                && file.variable(name)?.shape.count == 2
        }.sorted()
        // whisper-base: 6 encoder layers of 4 matrices, 6 decoder layers of 7.
        try #require(names.count == 66, "\(names.count) matrices")
        for name in names {
            let v = try #require(file.variable(name))
            try #require(v.dataType == .float16, "\(name) is \(v.dataType): the test needs an fp16 file")
            let rows = v.shape[0], columns = v.shape[1]
            let expectedValues = UnsafeMutablePointer<Int8>.allocate(capacity: rows * columns)
            let expectedScales = UnsafeMutablePointer<Float>.allocate(capacity: rows)
            defer { expectedValues.deallocate(); expectedScales.deallocate() }
            let tensor = try file.tensor(name)
            RowQuantization.quantize(tensor.pointer, rows: 0..<rows, columns: columns, into: expectedValues,
                                     scales: expectedScales, activations: false)
            let same = try file.withQuantizedHalfMatrix(name) { values, scales in
                (0..<rows * columns).allSatisfy { values[$0] == expectedValues[$0] }
                    && (0..<rows).allSatisfy { scales[$0].bitPattern == expectedScales[$0].bitPattern }
            }
            #expect(same == true, "\(name) [\(rows) × \(columns)]")
        }
    }

    @Test("variables it cannot quantize this way are left to the fp32 path (nil): vectors, widths not of 16, absent names")
    func declines() async throws {
        let directory = try await TestModels.directory(for: "whisper-base")
        let file = try ModelFile(url: directory.appendingPathComponent("model.bin"))
        let bias = try file.withQuantizedHalfMatrix("encoder/layer_0/ffn/linear_0/bias") { _, _ in true }
        #expect(bias == nil)
        let absent = try file.withQuantizedHalfMatrix("encoder/layer_99/ffn/linear_0/weight") { _, _ in true }
        #expect(absent == nil)
        // conv1's weight is 3-dimensional ([width, 80 mel bins, 3]).
        let conv = try file.withQuantizedHalfMatrix("encoder/conv1/weight") { _, _ in true }
        #expect(conv == nil)
    }

    @Test("the vector kernel widens every finite half to the fp32 value the table lookup gives")
    func widensAsTheTable() {
        var halves = (0..<0x7C00).map { UInt16($0) } + (0x8000..<0xFC00).map { UInt16($0) }
        halves += [UInt16](repeating: 0, count: (16 - halves.count % 16) % 16)
        var byTable = [Float](repeating: 0, count: halves.count), byKernel = byTable
        halves.withUnsafeBytes { raw in
            HalfConversion.halfToFloat(raw.baseAddress!, &byTable, count: halves.count)
            HalfConversion.widen(raw.baseAddress!, into: &byKernel, count: halves.count)
        }
        let differing = zip(byTable, byKernel).filter { $0.bitPattern != $1.bitPattern }.count
        #expect(differing == 0, "\(differing) finite halves widened differently")
    }
}
