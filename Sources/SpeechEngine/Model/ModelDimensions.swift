/// The sizes of a Whisper model, read from the shapes of its weights.
public struct ModelDimensions: Sendable, Equatable {
    public let melBins: Int
    public let modelWidth: Int
    public let encoderHeads: Int
    public let decoderHeads: Int
    public let encoderLayers: Int
    public let decoderLayers: Int
    public let vocabularySize: Int
    /// Encoder positions (1500 for 30 s windows).
    public let audioContext: Int
    /// Decoder positions (448).
    public let textContext: Int

    public var isMultilingual: Bool { vocabularySize >= 51865 }
}
