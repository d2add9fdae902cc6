import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

/// Copies of a real model.bin, truncated, zero-filled and bit-flipped, and the minimized inputs the fuzz target
/// `model-file` (scripts/fuzz) stands for: every one is read to the end or refused with a `ModelError`, never a crash.
@Suite("Damaged model files")
struct DamagedModelFileTests {
    /// Reads `bytes` as model.bin the way loading a model does; nil when it loads, else the error.
    private func read(_ bytes: Data, label: String) throws -> (any Error)? {
        let directory = try makeTemporaryDirectory(label)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("model.bin")
        try bytes.write(to: url)
        do {
            try EngineReaders.readModelFile(url)
            return nil
        } catch {
            return error
        }
    }

    /// A model.bin holding one variable after a Whisper header, written as CTranslate2 writes it.
    private func modelFile(name: String, shape: [UInt32], dataType: UInt8, byteCount: UInt32, payload: Data = Data()) -> Data {
        var bytes = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
        func string(_ s: String) {
            let utf8 = Array(s.utf8) + [0]
            withUnsafeBytes(of: UInt16(utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }
        u32(6); string("WhisperSpec"); u32(1); u32(1)
        string(name); bytes.append(UInt8(shape.count)); shape.forEach(u32); bytes.append(dataType); u32(byteCount)
        bytes.append(payload)
        u32(0)
        return bytes
    }

    @Test("a variable whose shape needs more bytes than it holds is refused before any read (was: read past the mapping)")
    func shapeLargerThanBytes() throws {
        let bytes = modelFile(name: "encoder/num_heads", shape: [1_000_000], dataType: 0, byteCount: 4, payload: Data(count: 4))
        let error = try read(bytes, label: "shape-larger")
        #expect(error as? ModelError == .corruptVariable(
            "encoder/num_heads", reason: "declares shape [1000000] of float32 but holds 4 bytes"))
    }

    @Test("a shape whose product overflows is refused (was: an overflow trap)")
    func overflowingShape() throws {
        let max = UInt32.max
        let error = try read(modelFile(name: "x", shape: [max, max, max, max], dataType: 4, byteCount: 0), label: "overflow")
        guard case ModelError.corruptVariable("x", _)? = error as? ModelError else {
            Issue.record("expected corruptVariable, got \(String(describing: error))")
            return
        }
    }

    @Test("a scalar without bytes is refused (was: a read of the bytes after it, or past the end of the file)")
    func emptyScalar() throws {
        let error = try read(modelFile(name: "encoder/num_heads", shape: [], dataType: 3, byteCount: 0), label: "empty-scalar")
        #expect(error as? ModelError == .corruptVariable("encoder/num_heads", reason: "declares shape [] of int32 but holds 0 bytes"))
    }

    @Test("truncated copies of a real model.bin are typed errors")
    func truncatedCopies() async throws {
        let source = try await TestModels.directory(for: "whisper-tiny.en").appendingPathComponent("model.bin")
        let bytes = try Data(contentsOf: source, options: .alwaysMapped)
        let cuts = [0, 1, 3, 4, 7, 20, 30, 64, 100, 1000, 4096] + (1...8).map { bytes.count * $0 / 9 } + [bytes.count - 1]
        for cut in cuts {
            let error = try read(bytes.prefix(cut), label: "truncated-\(cut)")
            #expect(error is ModelError, "cut at \(cut): \(String(describing: error))")
        }
    }

    @Test("zero-filled copies of a real model.bin load or are typed errors")
    func zeroFilledCopies() async throws {
        let source = try await TestModels.directory(for: "whisper-tiny.en").appendingPathComponent("model.bin")
        let original = try Data(contentsOf: source)
        #expect(try read(Data(count: original.count), label: "zeros") is ModelError)
        // Zeros over the header, over variable headers (names, shapes, sizes) and over weights.
        let file = try ModelFile(url: source)
        let headers = file.variables.values.map(\.offset).sorted().enumerated().filter { $0.offset % 40 == 0 }.map { $0.element - 24 }
        for start in [0, 16] + headers {
            var bytes = original
            bytes.resetBytes(in: start..<min(start + 32, bytes.count))
            let error = try read(bytes, label: "zeros-\(start)")
            #expect(error == nil || error is ModelError, "zeros at \(start): \(String(describing: error))")
        }
    }

    @Test("bit-flipped copies of a real model.bin load or are typed errors")
    func bitFlippedCopies() async throws {
        let source = try await TestModels.directory(for: "whisper-tiny.en").appendingPathComponent("model.bin")
        let original = try Data(contentsOf: source)
        let file = try ModelFile(url: source)
        // Flips in the bytes before a variable's values: its byte count, data type, shape, rank and name.
        var random = SeededGenerator(seed: 18)
        let offsets = file.variables.values.map(\.offset).sorted()
        for _ in 0..<10 {
            let target = offsets[Int(random.next() % UInt64(offsets.count))]
            let position = target - 1 - Int(random.next() % 40)
            var bytes = original
            bytes[position] ^= UInt8(1 << (random.next() % 8))
            let error = try read(bytes, label: "flip-\(position)")
            #expect(error == nil || error is ModelError, "flip at \(position): \(String(describing: error))")
        }
    }
}
