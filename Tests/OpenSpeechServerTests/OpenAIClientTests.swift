import Foundation
import Testing
import TestSupport

/// The server as OpenAI's users meet it: the official `openai` Python package, unmodified, pointed at it.
@Suite(.serialized) struct OpenAIClientTests {
    @Test("every response format, word times, streaming, translation and models through the openai package; the same text as `openspeech transcribe`")
    func everyFormat() async throws {
        let clip = try #require(Corpus.item("jfk"))
        let server = try await RunningServer.start()
        let result: [String: Any]
        do {
            result = try #require(try await openAIClient(server, "formats", [clip.originalURL.path]) as? [String: Any])
        } catch {
            print(server.output)
            _ = try await server.stop()
            throw error
        }
        #expect(server.leftovers().isEmpty, "upload files left: \(server.leftovers())")
        #expect(try await server.stop() == 0)

        let (status, cli) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.originalURL.path, "--locale", "en-US", "--model", "whisper-tiny.en", "--beam-size", "1",
             "--quiet"], environment: ["OPENSPEECH_HOME": TestModels.home.path])
        #expect(status == 0, "\(cli)")

        let text = try #require(result["json"] as? String)
        #expect(text == cli.trimmingCharacters(in: .whitespacesAndNewlines), "server and CLI differ")
        #expect(wordErrorRate(text, clip.transcript) <= 0.1, "\(text)")
        #expect((result["text"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) == text)

        let srt = try #require(result["srt"] as? String)
        #expect(srt.hasPrefix("1\n00:00:"), "\(srt)")
        #expect(srt.contains(" --> "))
        let vtt = try #require(result["vtt"] as? String)
        #expect(vtt.hasPrefix("WEBVTT\n\n00:00:"), "\(vtt)")
        for document in [srt, vtt] {
            let cueText = document.split(separator: "\n").filter { !$0.contains("-->") && Int($0) == nil && $0 != "WEBVTT" }
                .joined(separator: " ")
            #expect(wordErrorRate(cueText, text) == 0, "\(document)")
        }

        let verbose = try #require(result["verbose"] as? [String: Any])
        #expect(verbose["text"] as? String == text)
        #expect(verbose["language"] as? String == "english")
        #expect(abs((verbose["duration"] as? Double ?? 0) - clip.durationSeconds) < 0.1)
        let segments = try #require(verbose["segments"] as? [[String: Any]])
        #expect(!segments.isEmpty)
        var last = 0.0
        for (index, segment) in segments.enumerated() {
            let start = try #require(segment["start"] as? Double), end = try #require(segment["end"] as? Double)
            #expect(segment["id"] as? Int == index)
            #expect(start >= last - 0.01 && end > start && end <= clip.durationSeconds + 0.1, "\(segment)")
            last = end
        }
        #expect(segments.compactMap { $0["text"] as? String }.joined(separator: " ") == text)

        let withWords = try #require(result["verbose_words"] as? [String: Any])
        let words = try #require(withWords["words"] as? [[String: Any]])
        #expect(words.count >= text.split(separator: " ").count - 2, "\(words.count) words for \(text)")
        last = 0
        for word in words {
            let start = try #require(word["start"] as? Double), end = try #require(word["end"] as? Double)
            #expect(start >= last - 0.01 && end >= start && end <= clip.durationSeconds + 0.1, "\(word)")
            last = start
        }
        #expect(wordErrorRate(words.compactMap { $0["word"] as? String }.joined(separator: " "), text) == 0)
        #expect(withWords["text"] as? String == text)

        let events = try #require(result["stream"] as? [[String: Any]])
        let deltas = events.filter { $0["type"] as? String == "transcript.text.delta" }
        #expect(!deltas.isEmpty)
        #expect(events.last?["type"] as? String == "transcript.text.done")
        #expect(events.last?["text"] as? String == text)
        #expect(deltas.compactMap { $0["delta"] as? String }.joined() == text)

        // Translation runs the multilingual model's translate task (the language detected): English speech gives
        // its own words, in that model's spelling and punctuation.
        let translation = result["translation"] as? String ?? ""
        #expect(wordErrorRate(translation, text) <= 0.1, "English speech translates to its own text: \(translation)")

        let models = try #require(result["models"] as? [String])
        #expect(models.contains("whisper-1") && models.contains("whisper-tiny.en"), "\(models)")
        #expect((result["model"] as? [String: Any])?["id"] as? String == "whisper-tiny.en")
    }

    @Test("corpus clips: WER within the file tests' bounds and the same text as `openspeech transcribe`")
    func corpusClips() async throws {
        let clips = try ["1089-134686-0002", "1221-135766-0002", "1995-1837-0001", "LJ001-0001"].map {
            try #require(Corpus.item($0))
        }
        let server = try await RunningServer.start()
        var texts: [String] = []
        for clip in clips {
            let response = try await curl("\(server.baseURL)/v1/audio/transcriptions",
                                    ["-F", "file=@\(clip.originalURL.path)", "-F", "model=whisper-1", "-F", "language=en"])
            #expect(response.status == 200, "\(response.body)")
            texts.append(response.json?["text"] as? String ?? "")
        }
        #expect(try await server.stop() == 0)
        let (status, cli) = try await OpenSpeechExecutable.run(
            ["transcribe"] + clips.map(\.originalURL.path)
                + ["--locale", "en-US", "--model", "whisper-tiny.en", "--beam-size", "1", "--quiet"],
            environment: ["OPENSPEECH_HOME": TestModels.home.path])
        #expect(status == 0)
        #expect(texts == cli.split(separator: "\n").map(String.init), "server and CLI differ")
        let total = zip(clips, texts).reduce(into: ErrorCounts()) { sum, pair in
            sum += WordErrorRate.score(reference: pair.0.transcript, hypothesis: pair.1, language: "en")
        }
        print("server WER over \(clips.count) clips: \(total.rate)")
        #expect(total.rate <= 0.12)
    }
}
