import Foundation
import Hummingbird
import SpeechAssets

/// `GET /v1/models` and `GET /v1/models/{id}`: the installed transcription models in OpenAI's list shape, and
/// `whisper-1` (the server's default model under OpenAI's name).
struct ModelRoutes: Sendable {
    let configuration: ServerConfiguration

    private struct Model: Encodable {
        let id: String
        let object = "model"
        let created: Int
        let owned_by: String
    }

    private struct ModelList: Encodable {
        let object = "list"
        let data: [Model]
    }

    func add(to router: Router<ServerRequestContext>) {
        router.get("/v1/models") { _, _ in
            try Self.json(ModelList(data: models()))
        }
        router.get("/v1/models/{id}") { _, context in
            let id = try context.parameters.require("id")
            guard let model = models().first(where: { $0.id == id }) else { throw APIError.unknownModel(id) }
            return try Self.json(model)
        }
    }

    private func models() -> [Model] {
        let store = configuration.store
        let installed = store.catalog.models.filter { $0.isTranscriptionModel && store.installedDirectory(for: $0.id) != nil }
        let entries = installed.map { model in
            Model(id: model.id, created: Self.created(store.installedDirectory(for: model.id)), owned_by: "openspeech")
        }
        return [Model(id: "whisper-1", created: 0, owned_by: "openspeech")] + entries
    }

    /// When the model folder was installed (Unix seconds), 0 if unknown.
    private static func created(_ folder: URL?) -> Int {
        guard let folder, let date = (try? FileManager.default.attributesOfItem(atPath: folder.path))?[.creationDate] as? Date
                ?? (try? FileManager.default.attributesOfItem(atPath: folder.path))?[.modificationDate] as? Date else { return 0 }
        return Int(date.timeIntervalSince1970)
    }

    private static func json(_ value: some Encodable) throws -> Response {
        let data = try JSONEncoder().encode(value)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
