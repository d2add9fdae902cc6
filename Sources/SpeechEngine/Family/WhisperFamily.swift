/// Whisper as a model family: its model makes sessions, and a session decodes windows and long-form streams.
extension WhisperModel: SpeechModel {
    public var isMultilingual: Bool { tokenizer.isMultilingual }

    public func makeSession(maxBeams: Int?) -> any WindowDecoder & LongFormDecoder {
        WhisperSession(model: self, maxBeams: maxBeams ?? TranscriptionOptions.defaultBeamSize)
    }
}

extension WhisperSession: WindowDecoder, LongFormDecoder {
    public var isMultilingual: Bool { model.isMultilingual }

    public func encode(_ text: String) -> [Int] { model.tokenizer.encode(text) }

    /// 5, as Whisper's and faster-whisper's.
    public var defaultBeamSize: Int { TranscriptionOptions.defaultBeamSize }

    public func longFormStream(options: TranscriptionOptions) -> any LongFormStream {
        LongFormTranscription(session: self, options: options)
    }
}

extension LongFormTranscription: LongFormStream {}
