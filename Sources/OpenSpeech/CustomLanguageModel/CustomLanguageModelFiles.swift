import Foundation

/// The files of OpenSpeech's custom language models, all JSON: what `SFCustomLanguageModelData.export(to:)`
/// writes, and the language model and vocabulary `SFSpeechLanguageModel.prepareCustomLanguageModel` compiles
/// from it. Each names its format and version, so that a file of another kind is refused with a clear error.
enum CustomLanguageModelFiles {
    /// Exported training data: every phrase count (generators expanded, in insertion order) and the terms.
    struct TrainingData: Codable, Equatable {
        static let formatName = "openspeech.custom-language-model-data"
        var format = formatName
        var formatVersion = 1
        var locale: String
        var identifier: String
        var version: String
        var phraseCounts: [SFCustomLanguageModelData.PhraseCount]
        var terms: [SFCustomLanguageModelData.CustomPronunciation]
    }

    /// A prepared language model: the distinct phrases with their summed counts, most frequent first, and the
    /// distinct terms.
    struct LanguageModel: Codable, Equatable {
        static let formatName = "openspeech.custom-language-model"
        var format = formatName
        var formatVersion = 1
        var locale: String
        var identifier: String
        var version: String
        var clientIdentifier: String
        /// A digest of the training data file it was prepared from: the cache key.
        var sourceDigest: String
        var phrases: [SFCustomLanguageModelData.PhraseCount]
        var terms: [SFCustomLanguageModelData.CustomPronunciation]
    }

    /// A prepared vocabulary: the distinct terms.
    struct Vocabulary: Codable, Equatable {
        static let formatName = "openspeech.custom-vocabulary"
        var format = formatName
        var formatVersion = 1
        var sourceDigest: String
        var terms: [SFCustomLanguageModelData.CustomPronunciation]
    }

    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// The bytes of `url`; throws `SFSpeechError(.malformedSupplementalModel)` saying `remedy` if it cannot be read.
    static func read(_ url: URL, what: String, remedy: String) throws -> Data {
        var isDirectory: ObjCBool = false
        guard url.isFileURL, FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw SFSpeechError(.malformedSupplementalModel, "There is no \(what) at \(url.path). \(remedy)")
        }
        guard !isDirectory.boolValue else {
            throw SFSpeechError(.malformedSupplementalModel, "\(url.path) is a folder, not a \(what). \(remedy)")
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw SFSpeechError(.malformedSupplementalModel,
                                "Cannot read the \(what) at \(url.path) (\(error.localizedDescription)). \(remedy)")
        }
    }

    /// `data` decoded as `type`, whose format is `formatName`; throws `SFSpeechError(.malformedSupplementalModel)`
    /// saying `remedy` otherwise.
    static func decode<T: Decodable>(_ type: T.Type, formatName: String, from data: Data, at url: URL, what: String,
                                     remedy: String) throws -> T {
        let header = try? JSONDecoder().decode(Header.self, from: data)
        guard let header, header.format == formatName else {
            throw SFSpeechError(.malformedSupplementalModel, "\(url.path) is not a \(what) (it is "
                + (header?.format.map { "a file of kind \"\($0)\"" } ?? "not one of OpenSpeech's files, or is damaged")
                + "). \(remedy)")
        }
        guard header.formatVersion == 1 else {
            throw SFSpeechError(.malformedSupplementalModel, "The \(what) at \(url.path) has format version "
                + "\(header.formatVersion.map(String.init) ?? "none"), which this OpenSpeech does not read. \(remedy)")
        }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw SFSpeechError(.malformedSupplementalModel, "The \(what) at \(url.path) is damaged (\(error)). \(remedy)")
        }
    }

    /// The fields every file of ours starts with.
    private struct Header: Decodable {
        var format: String?
        var formatVersion: Int?
    }

    /// A 64-bit FNV-1a digest of `data`, in hex: identifies the training data a model was prepared from.
    static func digest(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
