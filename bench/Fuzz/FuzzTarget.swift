import Foundation
import Hummingbird
import NIOCore
import OpenSpeechServer
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// One reader of untrusted bytes, fed one input at a time. Typed errors are the expected answer to damaged input;
/// a crash, a sanitizer report, a hang or an allocation past libFuzzer's limit is a finding.
enum FuzzTarget: String, CaseIterable {
    case modelFile = "model-file"
    case config
    case tokenizer
    case vocabulary
    case onnx
    case safetensors
    case wavHeader = "wav-header"
    case audioFile = "audio-file"
    case catalog
    case installManifest = "install-manifest"
    case wheel
    case multipart
    case realtimeEvent = "realtime-event"
    case httpHead = "http-head"
    case bytePairEncoder = "byte-pair-encoder"
    case ortModel = "ort-model"
    case moonshineTokenizer = "moonshine-tokenizer"
    case torchCheckpoint = "torch-checkpoint"

    /// What the input stands for, for the script's help.
    var summary: String {
        switch self {
        case .modelFile: "CTranslate2 model.bin: variable table, values, Whisper weights"
        case .config: "config.json of a Whisper model directory"
        case .tokenizer: "tokenizer.json (with no vocabulary file beside it)"
        case .vocabulary: "vocabulary.json beside a minimal valid tokenizer.json"
        case .onnx: "silero_vad.onnx (protobuf constants, VAD weights)"
        case .safetensors: "silero_vad_16k.safetensors"
        case .wavHeader: "the RIFF/WAVE header readers (declared frames; the direct mono PCM reader, every sample)"
        case .audioFile: "AVAudioFile(forReading:) and reading every frame (FFmpeg)"
        case .catalog: "a model catalog file (OPENSPEECH_CATALOG, user-models.json)"
        case .installManifest: ".openspeech-install.json of an installed model"
        case .wheel: "a Python wheel (zip) a model installs from"
        case .multipart: "a multipart/form-data request body of the server"
        case .realtimeEvent: "a Realtime WebSocket message: event, session update, appended audio in every format"
        case .httpHead: "a connection's bytes before the HTTP parser (heads, bodies, framing), whole and byte by byte"
        case .bytePairEncoder: "text to the tokenizer's byte-pair encoder: round trip, and a letter run against the rules"
        case .ortModel: "an ONNX Runtime ORT-format model (Moonshine's): graphs, initializers, weights by layer"
        case .moonshineTokenizer: "Moonshine's tokenizer.bin: pieces, and every token decoded"
        case .torchCheckpoint: "a PyTorch checkpoint (zip, pickle, storages): every tensor, then CAM++'s weights"
        }
    }

    /// The file name the input is written to, in a folder of its own.
    var fileName: String {
        switch self {
        case .modelFile: "model.bin"
        case .config: "config.json"
        case .tokenizer: "tokenizer.json"
        case .vocabulary: "vocabulary.json"
        case .onnx: "silero_vad.onnx"
        case .safetensors: "silero_vad_16k.safetensors"
        case .wavHeader, .audioFile: "input.wav"
        case .catalog: "catalog.json"
        case .installManifest: ".openspeech-install.json"
        case .wheel: "model.whl"
        case .multipart: "body"
        case .realtimeEvent: "message.json"
        case .httpHead: "connection.bin"
        case .bytePairEncoder: "text.txt"
        case .ortModel: "model.ort"
        case .moonshineTokenizer: "tokenizer.bin"
        case .torchCheckpoint: "model.pt"
        }
    }

    /// Runs the reader on `bytes`; returns what it answered (for replays).
    func run(_ bytes: Data, in folder: URL) -> String {
        let url = folder.appendingPathComponent(fileName)
        do {
            if ![.multipart, .realtimeEvent, .httpHead, .bytePairEncoder].contains(self) { try bytes.write(to: url) }
            switch self {
            case .modelFile:
                try EngineReaders.readModelFile(url)
            case .config:
                try EngineReaders.readConfig(url)
            case .tokenizer:
                let tokenizer = try WhisperTokenizer(modelDirectory: folder)
                _ = tokenizer.decode(tokenizer.encode(" Hello world, 12.5% <|en|>"))
            case .vocabulary:
                try Data(MinimalTokenizer.json.utf8).write(to: folder.appendingPathComponent("tokenizer.json"))
                let tokenizer = try WhisperTokenizer(modelDirectory: folder)
                _ = tokenizer.decode(Array(0..<tokenizer.vocabularySize))
            case .onnx, .safetensors:
                _ = try SileroVAD(contentsOf: url)
            case .wavHeader:
                _ = wavDeclaredFrames(url)
                if let reader = MonoWAVReader(url: url, sampleRate: 16_000, toleratingTruncation: true) {
                    let samples = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
                    defer { samples.deallocate() }
                    while try reader.read(into: samples) > 0 {}
                }
            case .audioFile:
                let file = try AVAudioFile(forReading: url)
                guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4096) else {
                    return "no buffer"
                }
                repeat { try file.read(into: buffer) } while buffer.frameLength > 0
            case .catalog:
                guard try AssetReaders.readCatalog(url) else {
                    fatalError("a catalog passed the checks but installing it would write outside the model home")
                }
            case .installManifest:
                _ = AssetReaders.readInstallManifest(in: folder)
            case .wheel:
                try AssetReaders.readWheel(url, members: ["model.bin": ["ctranslate2_model/model.bin"]])
            case .multipart:
                try runMultipart(bytes)
            case .realtimeEvent:
                return try runRealtimeMessage(bytes)
            case .httpHead:
                return runConnectionBytes(bytes)
            case .bytePairEncoder:
                return try BytePairFuzz.run(bytes)
            case .ortModel:
                try EngineReaders.readORTModel(url)
            case .moonshineTokenizer:
                try EngineReaders.readMoonshineTokenizer(url)
            case .torchCheckpoint:
                try EngineReaders.readTorchCheckpoint(url)
            }
            return "read"
        } catch {
            return "\(type(of: error)): \(error)"
        }
    }

    /// One text message as a Realtime session reads it before any model runs: the event decoded, a session update
    /// checked against the defaults, appended audio decoded in every input format and high-pass filtered.
    private func runRealtimeMessage(_ bytes: Data) throws -> String {
        let configuration = ServerConfiguration(store: OpenSpeechFuzz.store)
        var settings = try RealtimeSessionSettings(configuration: configuration)
        switch RealtimeClientEvent.decode(String(decoding: bytes, as: UTF8.self)) {
        case .failure(let error):
            return "event error: \(error)"
        case .success(let received):
            switch received.event {
            case .updateSession(let update):
                settings = try settings.applying(update, configuration: configuration)
            case .appendAudio(let audio):
                for format in RealtimeAudioFormat.allCases {
                    var decoder = InputAudioDecoder(format: format)
                    var samples = decoder.decode(audio.prefix(audio.count / 2)).map { Float($0) / 32_768 }
                    samples += decoder.decode(audio.dropFirst(audio.count / 2)).map { Float($0) / 32_768 }
                    var filter = HighPassFilter(cutoffHertz: settings.noiseReduction?.cutoffHertz ?? 120)
                    filter.process(&samples)
                }
            case .commit, .clear:
                break
            }
            return "read"
        }
    }

    /// A connection's bytes through the guard's scanner at once and one byte at a time: the same verdict either way.
    private func runConnectionBytes(_ bytes: Data) -> String {
        func verdict(_ pieces: [Data]) -> String {
            var scanner = RequestHeadScanner()
            for piece in pieces {
                do { try scanner.scan(piece) } catch { return "refused \(error.status)" }
            }
            return "done \(scanner.isDone), inside a head \(scanner.isInsideHead)"
        }
        let whole = verdict([bytes])
        let single = verdict(bytes.map { Data([$0]) })
        guard whole == single else { fatalError("the scanner depends on how the bytes are cut: \(whole) / \(single)") }
        return whole
    }

    /// The body as the server receives it, cut in two where the first byte says (parsers keep state across chunks).
    private func runMultipart(_ bytes: Data) throws {
        let cut = bytes.isEmpty ? 0 : min(Int(bytes[bytes.startIndex]), bytes.count - 1) + 1
        let chunks = [bytes.prefix(cut), bytes.dropFirst(cut)].map { ByteBuffer(bytes: $0) }
        let body = RequestBody(asyncSequence: ChunkSequence(chunks: chunks))
        let outcome = BlockingResult<MultipartUpload>()
        Task.detached {
            do {
                outcome.set(.success(try await MultipartUpload.read(body, boundary: "fuzzboundary", maxBytes: 1 << 20)))
            } catch {
                outcome.set(.failure(error))
            }
        }
        try outcome.wait().get().folder.release()
    }
}

/// A body's chunks as an async sequence of buffers.
struct ChunkSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let chunks: [ByteBuffer]
    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<ByteBuffer>
        mutating func next() async -> ByteBuffer? { remaining.popFirst() }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: chunks[...]) }
}

/// A result handed from a task to a thread that waits for it. Safe to share: the value is written once under the
/// lock before the semaphore is signalled, and read after waiting on it.
final class BlockingResult<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Value, any Error>?

    func set(_ value: Result<Value, any Error>) {
        lock.withLock { result = value }
        done.signal()
    }

    func wait() -> Result<Value, any Error> {
        done.wait()
        return lock.withLock { result! }
    }
}
