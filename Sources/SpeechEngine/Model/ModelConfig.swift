import Foundation

/// `config.json` of a CTranslate2 Whisper model directory.
public struct ModelConfig: Sendable, Decodable {
    /// (decoder layer, head) pairs whose cross-attention follows the timing of words.
    public let alignmentHeads: [[Int]]
    /// Token ids of the language tokens, in the model's language order.
    public let languageIDs: [Int]
    /// Tokens never generated.
    public let suppressIDs: [Int]
    /// Tokens not generated as the first token (blank and end of text).
    public let suppressIDsBegin: [Int]

    enum CodingKeys: String, CodingKey {
        case alignmentHeads = "alignment_heads", languageIDs = "lang_ids"
        case suppressIDs = "suppress_ids", suppressIDsBegin = "suppress_ids_begin"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        alignmentHeads = try c.decodeIfPresent([[Int]].self, forKey: .alignmentHeads) ?? []
        languageIDs = try c.decodeIfPresent([Int].self, forKey: .languageIDs) ?? []
        suppressIDs = try c.decodeIfPresent([Int].self, forKey: .suppressIDs) ?? []
        suppressIDsBegin = try c.decodeIfPresent([Int].self, forKey: .suppressIDsBegin) ?? []
    }

    static func load(_ url: URL) throws -> ModelConfig {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw ModelError.missingFile(url) }
        do {
            return try JSONDecoder().decode(ModelConfig.self, from: data)
        } catch {
            throw ModelError.invalidConfig(String(describing: error))
        }
    }
}
