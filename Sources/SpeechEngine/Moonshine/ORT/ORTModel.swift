import Foundation

/// An ONNX Runtime model in its ORT format (a FlatBuffers file identified `ORTM`, schema `ort.fbs` in ONNX Runtime's
/// repository), as far as the engine needs one: the graph's initializers (name, dimensions, element type, where their
/// bytes are) and its nodes (operator, inputs, outputs, the subgraphs of control flow such as `If`), read without
/// trusting the file (`FlatBufferReader`). Nothing is executed: the engine maps the weights to its own layers.
struct ORTModel {
    /// ONNX's tensor element types the engine reads.
    enum ElementType: Int32, Sendable {
        case float32 = 1, uint8 = 2, int8 = 3, int32 = 6, int64 = 7, float16 = 10

        var byteWidth: Int {
            switch self {
            case .uint8, .int8: 1
            case .float16: 2
            case .float32, .int32: 4
            case .int64: 8
            }
        }
    }

    /// A constant of the graph.
    struct Initializer: Sendable {
        let name: String
        let dims: [Int]
        let elementType: ElementType
        /// Where its values are in the file.
        let bytes: Range<Int>

        var elementCount: Int { bytes.count / elementType.byteWidth }
    }

    /// An operator of the graph.
    struct Node: Sendable {
        let name: String
        let opType: String
        let inputs: [String]
        let outputs: [String]
        /// The graphs its attributes hold (`If`'s branches).
        let subgraphs: [Graph]
    }

    struct Graph: Sendable {
        let initializers: [Initializer]
        let nodes: [Node]
        let inputs: [String]
        let outputs: [String]

        /// Every node of this graph and of its subgraphs, depth first.
        var allNodes: [Node] { nodes.flatMap { [$0] + $0.subgraphs.flatMap(\.allNodes) } }
        /// Every initializer of this graph and of its subgraphs.
        var allInitializers: [Initializer] { initializers + nodes.flatMap { $0.subgraphs.flatMap(\.allInitializers) } }
    }

    /// The ORT format version the file declares.
    let formatVersion: String
    let graph: Graph
    /// The file's bytes (mapped).
    let data: Data

    /// Subgraphs nest at most this deep, and reading visits at most this many graphs, nodes, attributes, initializers
    /// and node inputs and outputs (Moonshine's decoder: 2 levels, 2,700 nodes, about 12,000 in all): a file whose
    /// graphs refer to each other in a loop, or to one large graph many times, is refused, not read without end.
    static let maximumDepth = 4
    static let maximumElements = 2_000_000

    /// Reads the ORT-format model at `url`. Throws `ModelError.missingFile`, else `ORTFormatError`.
    init(url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { throw ModelError.missingFile(url) }
        try self.init(data: try Data(contentsOf: url, options: .alwaysMapped), name: url.lastPathComponent)
    }

    /// Reads an ORT-format model from `data`; `name` names the file in errors.
    init(data: Data, name: String) throws {
        let reader = FlatBufferReader(data)
        guard reader.data.count >= 8, try reader.fileIdentifier() == "ORTM" else { throw ORTFormatError.notORTFormat(name) }
        // InferenceSession { ort_version: string; model: Model; ... }
        let session = try reader.root()
        formatVersion = try reader.string(session, 0) ?? ""
        guard ["5", "6"].contains(formatVersion) else { throw ORTFormatError.unsupportedVersion(formatVersion) }
        // Model { ir_version, opset_import, producer_name, producer_version, domain, model_version, doc_string, graph }
        guard let model = try reader.table(session, 1), let graph = try reader.table(model, 7) else {
            throw ORTFormatError.malformed("it has no model graph")
        }
        var budget = Self.maximumElements
        self.graph = try Self.graph(graph, reader: reader, depth: 0, budget: &budget)
        self.data = reader.data
    }

    // Graph { initializers: [Tensor]; node_args; nodes: [Node]; max_node_index; node_edges; inputs: [string];
    //         outputs: [string]; ... }
    private static func graph(_ table: FlatBufferReader.Table, reader: FlatBufferReader, depth: Int,
                              budget: inout Int) throws -> Graph {
        guard depth <= maximumDepth else { throw ORTFormatError.malformed("its subgraphs nest deeper than \(maximumDepth)") }
        let initializerTables = try reader.tables(table, 0), nodeTables = try reader.tables(table, 2)
        let inputs = try reader.strings(table, 5), outputs = try reader.strings(table, 6)
        try spend(1 + initializerTables.count + nodeTables.count + inputs.count + outputs.count, from: &budget)
        let initializers = try initializerTables.map { try initializer($0, reader: reader) }
        let nodes = try nodeTables.map { try node($0, reader: reader, depth: depth, budget: &budget) }
        return Graph(initializers: initializers, nodes: nodes, inputs: inputs, outputs: outputs)
    }

    // Node { name, doc_string, domain, since_version, index, op_type, type, execution_provider_type, inputs, outputs,
    //        attributes: [Attribute]; ... }
    // Attribute { name, doc_string, type: AttributeType (GRAPH = 5, GRAPHS = 10), f, i, s, t, g: Graph, floats, ints,
    //             strings, tensors, graphs: [Graph] }
    private static func node(_ table: FlatBufferReader.Table, reader: FlatBufferReader, depth: Int,
                             budget: inout Int) throws -> Node {
        let inputs = try reader.strings(table, 8), outputs = try reader.strings(table, 9)
        let attributes = try reader.tables(table, 10)
        try spend(inputs.count + outputs.count + attributes.count, from: &budget)
        var subgraphs: [Graph] = []
        for attribute in attributes {
            let type: Int32 = try reader.scalar(attribute, 2)
            if type == 5, let graph = try reader.table(attribute, 7) {
                subgraphs.append(try Self.graph(graph, reader: reader, depth: depth + 1, budget: &budget))
            } else if type == 10 {
                for graph in try reader.tables(attribute, 12) {
                    subgraphs.append(try Self.graph(graph, reader: reader, depth: depth + 1, budget: &budget))
                }
            }
        }
        return Node(name: try reader.string(table, 0) ?? "", opType: try reader.string(table, 5) ?? "",
                    inputs: inputs, outputs: outputs, subgraphs: subgraphs)
    }

    private static func spend(_ count: Int, from budget: inout Int) throws {
        budget -= count
        guard budget >= 0 else {
            throw ORTFormatError.malformed("its graphs hold more than \(maximumElements) nodes, values and attributes")
        }
    }

    // Tensor { name, doc_string, dims: [int64], data_type: TensorDataType, raw_data: [uint8], string_data,
    //          external_data_offset: int64 = -1 (newer writers) }
    private static func initializer(_ table: FlatBufferReader.Table, reader: FlatBufferReader) throws -> Initializer {
        let name = try reader.string(table, 0) ?? ""
        let dims = try reader.scalars(table, 2, as: Int64.self)
        let code: Int32 = try reader.scalar(table, 3)
        let external: Int64 = try reader.scalar(table, 6, default: -1)
        guard external < 0 else { throw ORTFormatError.invalidTensor(name, reason: "keeps its values outside the file") }
        guard let type = ElementType(rawValue: code) else {
            throw ORTFormatError.invalidTensor(name, reason: "has element type \(code), which this engine does not read")
        }
        guard dims.allSatisfy({ $0 >= 0 && $0 <= Int32.max }) else {
            throw ORTFormatError.invalidTensor(name, reason: "declares dimensions \(dims)")
        }
        let shape = dims.map(Int.init)
        let bytes = try reader.byteRange(table, 4)
        guard let count = ModelFile.elementCount(shape),
              case let (expected, overflow) = count.multipliedReportingOverflow(by: type.byteWidth), !overflow,
              expected == bytes.count
        else {
            throw ORTFormatError.invalidTensor(name, reason: "declares dimensions \(shape) of type \(type) but holds \(bytes.count) bytes")
        }
        return Initializer(name: name, dims: shape, elementType: type, bytes: bytes)
    }

    // MARK: Values

    /// The values of a `float32` initializer.
    func floats(_ initializer: Initializer) throws -> [Float] {
        guard initializer.elementType == .float32 else {
            throw ORTFormatError.invalidTensor(initializer.name, reason: "is \(initializer.elementType), not float32")
        }
        return data.withUnsafeBytes { raw in
            (0..<initializer.elementCount).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(
                    fromByteOffset: initializer.bytes.lowerBound + 4 * $0, as: UInt32.self)))
            }
        }
    }

    /// The values of an `int8` initializer.
    func int8s(_ initializer: Initializer) throws -> [Int8] {
        guard initializer.elementType == .int8 else {
            throw ORTFormatError.invalidTensor(initializer.name, reason: "is \(initializer.elementType), not int8")
        }
        // One copy of the bytes (a per-byte map through `Data` cost most of a model's load).
        return data.withUnsafeBytes { raw in
            let source = UnsafeRawBufferPointer(rebasing: raw[initializer.bytes])
            return [Int8](unsafeUninitializedCapacity: source.count) { buffer, count in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
                count = source.count
            }
        }
    }
}
