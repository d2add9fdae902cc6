/// Whisper as a model family: its session decodes windows and long-form streams.
extension WhisperSession: WindowDecoder, LongFormDecoder {
    public var isMultilingual: Bool { model.tokenizer.isMultilingual }

    public func encode(_ text: String) -> [Int] { model.tokenizer.encode(text) }

    public func longFormStream(options: TranscriptionOptions) -> any LongFormStream {
        LongFormTranscription(session: self, options: options)
    }
}

extension LongFormTranscription: LongFormStream {}
