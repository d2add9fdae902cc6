import Logging
import OpenSpeech

extension ServerConfiguration {
    /// Makes the models of `transcriber` ready as this server may (`FileTranscriber.prepareModels`): installs the
    /// missing ones when it installs models, else refuses a missing transcription model (404 `model_not_installed`).
    /// A request never makes the server download from the Hugging Face Hub (gigabytes, on a client's word): a model
    /// only the Hub serves is refused the same way until its operator installs it.
    /// Shared by the REST routes and Realtime sessions.
    func prepareModels(for transcriber: FileTranscriber, logger: Logger) async throws {
        let store = transcriber.store
        let needsTheHub = try transcriber.requiredModelIDs().contains { id in
            store.installedDirectory(for: id) == nil && store.catalog.model(id)?.isHubSourced == true
        }
        let missing = try await transcriber.prepareModels(installing: installsMissingModels && !needsTheHub) { id, fraction in
            if fraction == 0 { logger.info("installing a model", metadata: ["model": .string(id)]) }
        }
        guard let missing else { return }
        throw APIError(.notFound, "The model `\(missing)` is not installed on this server; install it with "
                       + "`openspeech models install \(missing)`.", param: "model", code: "model_not_installed")
    }

    /// Makes the diarizer's models ready as this server may, by the same rule: installs the missing ones when it
    /// installs models (never from the Hugging Face Hub on a request); a missing speech detector is not needed (the
    /// energy detector finds the speech), nor a missing segmentation model (one speaker at a time), a missing
    /// speaker-embedding model is refused (404 `model_not_installed`).
    /// Diarized requests are the only ones that need these models, so a server installs them on the first one.
    func prepareDiarizationModels(logger: Logger) async throws {
        let diarizer = SpeakerDiarizer(store: store)
        for id in diarizer.requiredModelIDs where store.installedDirectory(for: id) == nil {
            guard installsMissingModels, store.catalog.model(id)?.isHubSourced != true else { continue }
            logger.info("installing a model", metadata: ["model": .string(id)])
            try await store.install(id)
        }
        if store.installedDirectory(for: SpeakerDiarizer.embeddingModelID) == nil {
            throw APIError.diarizationModelMissing(SpeakerDiarizer.embeddingModelID)
        }
    }
}
