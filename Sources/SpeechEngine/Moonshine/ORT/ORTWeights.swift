import Foundation

/// The weights of an ORT-format model under the names of the layers they belong to, as PyTorch names them
/// (`layers.0.self_attn.q_proj.weight`):
///
/// - an 8-bit weight stored as weight-only quantization writes it (an `int8` initializer, then `Cast` to float,
///   `Mul` by a one-value scale, `Add` of a one-value zero point: `w = q × scale + zeroPoint`, per tensor) is named by
///   its initializer when that name is the layer's (`conv1.weight_quantized` → `conv1.weight`), else, for the
///   exporter's placeholders (`onnx::MatMul_1947_quantized`), by the node that consumes it
///   (`/layers.0/self_attn/q_proj/MatMul` → `layers.0.self_attn.q_proj.weight`);
/// - a float initializer by its own name.
///
/// An optimizer's `_merged_N` suffix (ONNX Runtime merging the decoder's two graphs) is dropped everywhere.
struct ORTWeights {
    /// An 8-bit weight and how its values map to floats.
    struct Quantized: Sendable {
        let initializer: ORTModel.Initializer
        let scale: Float
        let zeroPoint: Float

        var dims: [Int] { initializer.dims }
    }

    let model: ORTModel
    private(set) var quantized: [String: Quantized] = [:]
    private(set) var floats: [String: ORTModel.Initializer] = [:]
    /// The float initializers under the names the graph's nodes use.
    private var floatsByGraphName: [String: ORTModel.Initializer] = [:]

    init(model: ORTModel) throws {
        self.model = model
        let initializers = Dictionary(model.graph.allInitializers.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var consumers: [String: [ORTModel.Node]] = [:]
        for node in model.graph.allNodes {
            for input in node.inputs { consumers[input, default: []].append(node) }
        }
        /// The one-value float initializer `node` takes beside `input`, nil if it takes none.
        func constant(of node: ORTModel.Node, besides input: String) throws -> Float? {
            guard node.inputs.count == 2, let other = node.inputs.first(where: { $0 != input }),
                  let value = initializers[other], value.elementType == .float32, value.elementCount == 1
            else { return nil }
            return try model.floats(value)[0]
        }

        for initializer in initializers.values.sorted(by: { $0.name < $1.name }) {
            if initializer.elementType == .float32 {
                floats[Self.plainName(initializer.name)] = initializer
                floatsByGraphName[initializer.name] = initializer
                continue
            }
            guard initializer.elementType == .int8,
                  let cast = consumers[initializer.name]?.first(where: { $0.opType == "Cast" }), let casted = cast.outputs.first,
                  let mul = consumers[casted]?.first(where: { $0.opType == "Mul" }), let scaled = mul.outputs.first,
                  let scale = try constant(of: mul, besides: casted),
                  let add = consumers[scaled]?.first(where: { $0.opType == "Add" }), let weight = add.outputs.first,
                  let zeroPoint = try constant(of: add, besides: scaled)
            else { continue }
            guard scale.isFinite, scale > 0, zeroPoint.isFinite else {
                throw ORTFormatError.invalidTensor(initializer.name, reason: "has the scale \(scale) and zero point \(zeroPoint)")
            }
            let value = Quantized(initializer: initializer, scale: scale, zeroPoint: zeroPoint)
            let own = Self.plainName(initializer.name)
            if !own.hasPrefix("onnx::") && !own.hasPrefix("/") {
                quantized[own.hasSuffix("_quantized") ? String(own.dropLast("_quantized".count)) : own] = value
                continue
            }
            for name in Set((consumers[weight] ?? []).compactMap(Self.layerName)) {
                guard quantized[name] == nil else {
                    throw ORTFormatError.malformed("two weights are consumed by the layer \(name)")
                }
                quantized[name] = value
            }
        }
    }

    /// `name` without an optimizer's `_merged_N` suffix (before `_quantized` when both are there).
    static func plainName(_ name: String) -> String {
        var base = name
        var suffix = ""
        if base.hasSuffix("_quantized") {
            base.removeLast("_quantized".count)
            suffix = "_quantized"
        }
        if let range = base.range(of: "_merged_", options: .backwards),
           !base[range.upperBound...].isEmpty, base[range.upperBound...].allSatisfy(\.isNumber) {
            base.removeSubrange(range.lowerBound...)
        }
        return base + suffix
    }

    /// The weight name of the layer a node belongs to (`/model/decoder/layers.0/self_attn/q_proj/MatMul` →
    /// `model.decoder.layers.0.self_attn.q_proj.weight`), nil for a node the exporter did not name after a module.
    static func layerName(of node: ORTModel.Node) -> String? {
        guard ["MatMul", "Conv", "Gather", "Gemm"].contains(node.opType), node.name.hasPrefix("/") else { return nil }
        let path = node.name.split(separator: "/").dropLast()
        guard !path.isEmpty else { return nil }
        return path.joined(separator: ".") + ".weight"
    }

    // MARK: Values

    /// The float values of the weight `name`, quantized ones dequantized as the graph does (`q × scale + zeroPoint`
    /// in float32). Throws `ORTFormatError.missingWeight`.
    func values(_ name: String) throws -> [Float] {
        if let weight = quantized[name] {
            return try model.int8s(weight.initializer).map { Float($0) * weight.scale + weight.zeroPoint }
        }
        if let weight = floats[name] { return try model.floats(weight) }
        throw ORTFormatError.missingWeight(name)
    }

    /// Whether the graph holds the weight `name`.
    func has(_ name: String) -> Bool { quantized[name] != nil || floats[name] != nil }

    /// The values of the float initializer the node named `node` takes as an input (a constant the exporter named
    /// after no module, such as the group norm's scale). Throws `ORTFormatError.missingWeight`.
    func floats(consumedBy node: String) throws -> [Float] {
        guard let found = model.graph.allNodes.first(where: { $0.name == node }),
              let input = found.inputs.lazy.compactMap({ self.floatsByGraphName[$0] }).first
        else { throw ORTFormatError.missingWeight("the constant of \(node)") }
        return try model.floats(input)
    }

    /// The dimensions of the weight `name`. Throws `ORTFormatError.missingWeight`.
    func dims(_ name: String) throws -> [Int] {
        guard let dims = quantized[name]?.dims ?? floats[name]?.dims else { throw ORTFormatError.missingWeight(name) }
        return dims
    }
}
