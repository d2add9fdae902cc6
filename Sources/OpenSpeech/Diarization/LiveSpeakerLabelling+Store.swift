import Foundation
import SpeechAssets
import SpeechEngine

extension LiveSpeakerLabelling {
    /// Labelling on the models installed in `store`: the speaker embeddings (loaded once per process) and the speech
    /// detector (Silero's, else the energy detector). Throws `SFSpeechError(.noModel)` when the embeddings are not
    /// installed.
    package static func installed(in store: ModelStore, maxSpeakers: Int? = nil, threads: Int = 1) throws -> LiveSpeakerLabelling {
        let id = SpeakerDiarizer.embeddingModelID
        guard let directory = store.installedDirectory(for: id) else {
            throw SFSpeechError(.noModel, "The speaker-embedding model \(id) is not installed; install it with "
                + "`openspeech models install \(id)`.")
        }
        return LiveSpeakerLabelling(embedder: SpeakerEmbedder(model: try LoadedModelCache.speakerEmbeddings.model(in: directory)),
                                    detector: SpeechDetector.makeVoiceActivityDetector(store: store).0,
                                    maxSpeakers: maxSpeakers, threads: threads)
    }
}
