import Foundation

extension DictationTranscriber {
    /// What the audio is like, as in Apple's Speech. Ours accept and store every hint; `shortForm` shortens the
    /// step between volatile results and decodes greedily (unless alternatives are asked for), the others change
    /// nothing.
    public struct ContentHint: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case shortForm, farField, atypicalSpeech
            case customizedLanguage(SFSpeechLanguageModel.Configuration)
        }

        let kind: Kind

        /// Short utterances (commands, search queries, messages).
        public static let shortForm = ContentHint(kind: .shortForm)
        /// Speech from a distance from the microphone.
        public static let farField = ContentHint(kind: .farField)
        /// Speech that differs from typical speech patterns.
        public static let atypicalSpeech = ContentHint(kind: .atypicalSpeech)

        /// A custom language model prepared by `SFSpeechLanguageModel.prepareCustomLanguageModel`. Ours: its terms and
        /// most frequent phrases are given to the model as contextual strings (the Whisper model is not retrained).
        public static func customizedLanguage(modelConfiguration: SFSpeechLanguageModel.Configuration) -> ContentHint {
            ContentHint(kind: .customizedLanguage(modelConfiguration))
        }

        /// The custom language model configuration, if this hint carries one.
        public var modelConfiguration: SFSpeechLanguageModel.Configuration? {
            if case .customizedLanguage(let configuration) = kind { return configuration }
            return nil
        }
    }

    /// Options that change the text, as in Apple's Speech.
    public enum TranscriptionOption: Hashable, Sendable, CaseIterable {
        /// Keep the model's punctuation. Without it punctuation is removed (spoken punctuation words stay words).
        case punctuation
        /// Spoken emoji names ("smiley face", "heart emoji", "thumbs up") become emoji.
        case emoji
        /// Masks profanity with asterisks (the first letter stays).
        case etiquetteReplacements
    }

    /// Options that change which results are delivered and when, as in Apple's Speech.
    public enum ReportingOption: Hashable, Sendable, CaseIterable {
        /// Deliver volatile (provisional) results as audio arrives, replaced by final ones later.
        case volatileResults
        /// Deliver alternative transcriptions in `Result.alternatives`. Ours: the beam search's other finished
        /// hypotheses for each final result of final-only transcription (beam search even with `shortForm`);
        /// volatile mode has one (see `Result.alternatives`).
        case alternativeTranscriptions
        /// Finalize sooner: volatile text is re-decoded every half second, so agreed words commit sooner.
        case frequentFinalization
    }

    /// Attributes put on result text, as in Apple's Speech.
    public enum ResultAttributeOption: Hashable, Sendable, CaseIterable {
        /// `audioTimeRange` on each word.
        case audioTimeRange
        /// `transcriptionConfidence` (0 to 1) on each word (with time ranges) or result.
        case transcriptionConfidence
    }

    /// A named set of options, as in Apple's Speech.
    public struct Preset: Sendable, Equatable {
        /// The hints about the speech.
        public var contentHints: Set<ContentHint>
        /// The options that change the text.
        public var transcriptionOptions: Set<TranscriptionOption>
        /// The options that choose which results are delivered and when.
        public var reportingOptions: Set<ReportingOption>
        /// The attributes put on result text.
        public var attributeOptions: Set<ResultAttributeOption>

        /// A preset with these options; no content hints by default.
        public init(contentHints: Set<ContentHint> = [], transcriptionOptions: Set<TranscriptionOption>,
                    reportingOptions: Set<ReportingOption>, attributeOptions: Set<ResultAttributeOption>) {
            self.contentHints = contentHints
            self.transcriptionOptions = transcriptionOptions
            self.reportingOptions = reportingOptions
            self.attributeOptions = attributeOptions
        }

        /// A short phrase (a command, a search): final results, no punctuation.
        public static let phrase = Preset(contentHints: [.shortForm], transcriptionOptions: [],
                                          reportingOptions: [], attributeOptions: [])
        /// A short message: final results with punctuation.
        public static let shortDictation = Preset(contentHints: [.shortForm], transcriptionOptions: [.punctuation],
                                                  reportingOptions: [], attributeOptions: [])
        /// A short message as it is spoken: volatile results, then final ones, with punctuation.
        public static let progressiveShortDictation = Preset(
            contentHints: [.shortForm], transcriptionOptions: [.punctuation],
            reportingOptions: [.volatileResults, .frequentFinalization], attributeOptions: [])
        /// Long dictation (notes, documents): final results with punctuation.
        public static let longDictation = Preset(transcriptionOptions: [.punctuation], reportingOptions: [],
                                                 attributeOptions: [])
        /// Long dictation as it is spoken: volatile results, then final ones, with punctuation.
        public static let progressiveLongDictation = Preset(transcriptionOptions: [.punctuation],
                                                            reportingOptions: [.volatileResults], attributeOptions: [])
        /// Long dictation with each word's audio time range: final results with punctuation.
        public static let timeIndexedLongDictation = Preset(transcriptionOptions: [.punctuation], reportingOptions: [],
                                                            attributeOptions: [.audioTimeRange])
    }
}
