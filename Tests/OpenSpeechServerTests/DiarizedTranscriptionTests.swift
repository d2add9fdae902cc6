import Foundation
@testable import OpenSpeechServer
import OpenSpeech
import Testing
import TestSupport

/// Speakers through the server (issue 45): `response_format=diarized_json` read by the official `openai` package,
/// known speakers named by reference clips, speakers in `verbose_json` with `diarize=true`, streamed segments, and
/// the refusals, on a conversation built here from two real speakers' corpus utterances: a LibriSpeech reader (4198)
/// and LJ Speech's reader, taking turns with pauses.
@Suite(.serialized) struct DiarizedTranscriptionTests {
    /// The turns, in order: who speaks (`reader`: LibriSpeech 4198, `lj`: LJ Speech) and the utterance.
    static let script: [(speaker: String, utterance: String)] = [
        ("reader", "4198-12281-0002"), ("lj", "LJ001-0001"), ("reader", "4198-12281-0003"), ("lj", "LJ001-0005"),
        ("reader", "4198-12281-0007"),
    ]
    /// Other utterances of the same two people: the known speakers' references (5 to 6 s each); and a third
    /// person's (LibriSpeech 7018), who does not speak in the conversation.
    static let references = [("lj", "LJ001-0006"), ("reader", "4198-12281-0004"), ("stranger", "7018-75788-0001")]
    /// The pause between turns, in seconds.
    static let pause = 1.0

    /// The conversation's samples and each turn's span in seconds.
    static func conversation() throws -> (samples: [Float], spans: [(start: Double, end: Double, speaker: String)],
                                          transcript: String) {
        var samples: [Float] = [], spans: [(start: Double, end: Double, speaker: String)] = [], words: [String] = []
        for (index, turn) in script.enumerated() {
            let item = try #require(Corpus.item(turn.utterance))
            if index > 0 { samples += [Float](repeating: 0, count: Int(pause * 16_000)) }
            let start = Double(samples.count) / 16_000
            samples += try MonoAudio.load(contentsOf: item.wav16kURL)
            spans.append((start, Double(samples.count) / 16_000, turn.speaker))
            words.append(item.transcript)
        }
        return (samples, spans, words.joined(separator: " "))
    }

    /// `samples` as a 16 kHz WAV file in `folder`.
    static func write(_ samples: [Float], _ name: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("\(name).wav")
        let file = try AVAudioFile(forWriting: url, settings: [AVSampleRateKey: 16_000.0])
        try file.write(from: MonoAudio.buffer(samples))
        try file.closeThrowing()
        return url
    }

    /// The share of the segments' time whose label is the speaker `label` maps the turn they fall in to (a
    /// segment's turn: the one holding its middle); and each turn's most frequent label, in order.
    static func agreement(_ segments: [[String: Any]], spans: [(start: Double, end: Double, speaker: String)],
                          label: (String) -> String) -> (share: Double, turns: [String?]) {
        var right = 0.0, total = 0.0
        var votes = [[String: Double]](repeating: [:], count: spans.count)
        for segment in segments {
            guard let start = segment["start"] as? Double, let end = segment["end"] as? Double,
                  let speaker = segment["speaker"] as? String else { continue }
            let middle = (start + end) / 2
            guard let turn = spans.indices.min(by: {
                abs((spans[$0].start + spans[$0].end) / 2 - middle) - (spans[$0].end - spans[$0].start) / 2
                    < abs((spans[$1].start + spans[$1].end) / 2 - middle) - (spans[$1].end - spans[$1].start) / 2
            }) else { continue }
            total += end - start
            if speaker == label(spans[turn].speaker) { right += end - start }
            votes[turn][speaker, default: 0] += end - start
        }
        return (total > 0 ? right / total : 0, votes.map { $0.max { $0.value < $1.value }?.key })
    }

    @Test("diarized_json through the openai package: two speakers lettered A and B where the turns are, the words; known speakers by name; streamed segments; verbose_json with diarize=true; a silent reference refused")
    func diarizedThroughTheOpenAIClient() async throws {
        _ = try await TestModels.directory(for: SpeakerDiarizer.embeddingModelID)
        let folder = try makeTemporaryDirectory("openspeech-diarized")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (samples, spans, transcript) = try Self.conversation()
        let talk = try Self.write(samples, "talk", in: folder)
        var known: [String] = []
        for (name, id) in Self.references {
            known.append("\(name)=\(try #require(Corpus.item(id)).wav16kURL.path)")
        }
        let silent = try Self.write([Float](repeating: 0, count: 4 * 16_000), "silent", in: folder)

        var result: [String: Any] = [:]
        try await RunningServer.with { server in
            result = try #require(try await openAIClient(server, "diarized", [talk.path] + known + [silent.path])
                                  as? [String: Any])
        }

        // Unnamed: letters in order of first appearance, as OpenAI labels speakers; the reader speaks first.
        let diarized = try #require(result["diarized"] as? [String: Any])
        #expect(diarized["class"] as? String == "TranscriptionDiarized")
        #expect(diarized["task"] as? String == "transcribe")
        #expect(abs((diarized["duration"] as? Double ?? 0) - Double(samples.count) / 16_000) < 0.1)
        let text = try #require(diarized["text"] as? String)
        let rate = wordErrorRate(text, transcript)
        print("diarized_json WER \(rate): \(text)")
        #expect(rate <= 0.2, "\(text)")
        let segments = try #require(diarized["segments"] as? [[String: Any]])
        for (index, segment) in segments.enumerated() {
            #expect(segment["type"] as? String == "transcript.text.segment")
            #expect(segment["id"] as? String == "seg_\(index)")
        }
        #expect(Set(segments.compactMap { $0["speaker"] as? String }) == ["A", "B"], "\(segments)")
        #expect(wordErrorRate(segments.compactMap { $0["text"] as? String }.joined(separator: " "), text) == 0)
        let letters = Self.agreement(segments, spans: spans) { ["reader": "A", "lj": "B"][$0]! }
        print("diarized_json: \(letters.share) of the segments' time on the right speaker; turns \(letters.turns)")
        #expect(letters.share >= 0.9)
        #expect(letters.turns == ["A", "B", "A", "B", "A"], "the speakers alternate as the turns do")

        // Known speakers: labels are the names given, on the right turns; the stranger, who does not speak, names
        // nobody.
        let named = try #require(result["known"] as? [String: Any])
        #expect(named["class"] as? String == "TranscriptionDiarized")
        let namedSegments = try #require(named["segments"] as? [[String: Any]])
        #expect(Set(namedSegments.compactMap { $0["speaker"] as? String }) == ["lj", "reader"], "\(namedSegments)")
        let names = Self.agreement(namedSegments, spans: spans) { $0 }
        print("known speakers: \(names.share) of the segments' time named right; turns \(names.turns)")
        #expect(names.share >= 0.9)
        #expect(names.turns == Self.script.map { Optional($0.speaker) })
        #expect(named["text"] as? String == text)

        // Streamed: the deltas, then one transcript.text.segment event per segment of the document, then the text.
        let events = try #require(result["stream"] as? [[String: Any]])
        let segmentEvents = events.filter { $0["type"] as? String == "transcript.text.segment" }
        #expect(events.last?["type"] as? String == "transcript.text.done")
        #expect(events.last?["text"] as? String == text)
        #expect(segmentEvents.count == segments.count)
        #expect(segmentEvents.compactMap { $0["speaker"] as? String } == segments.compactMap { $0["speaker"] as? String })
        #expect(segmentEvents.compactMap { $0["text"] as? String } == segments.compactMap { $0["text"] as? String })

        // verbose_json with diarize=true: the same letters on segments and words.
        let verbose = try #require(result["verbose"] as? [String: Any])
        let verboseSegments = try #require(verbose["segments"] as? [[String: Any]])
        #expect(Self.agreement(verboseSegments, spans: spans) { ["reader": "A", "lj": "B"][$0]! }.share >= 0.9)
        let words = try #require(verbose["words"] as? [[String: Any]])
        #expect(!words.isEmpty && words.allSatisfy { ["A", "B"].contains($0["speaker"] as? String ?? "") }, "\(words.prefix(3))")
        #expect(Self.agreement(words, spans: spans) { ["reader": "A", "lj": "B"][$0]! }.share >= 0.9)

        // A silent reference: 400 naming it, in OpenAI's error shape.
        let refusal = try #require(result["silent_reference"] as? [String: Any])
        #expect(refusal["status"] as? Int == 400)
        #expect(refusal["param"] as? String == "known_speaker_references")
        let message = ((refusal["body"] as? [String: Any])?["message"] as? String) ?? ""
        #expect(message == "known_speaker_references[] 2 (for `silence`) holds no speech; send 2 to 10 s of silence "
                + "speaking alone.", "\(refusal)")
    }

    @Test("refusals before any work: references that are not audio, names without references, speakers without diarization, diarized_json on translations; a missing speaker model is a 404")
    func refusals() async throws {
        let clip = try #require(Corpus.item("LJ001-0002"))
        let notAudio = "data:audio/wav;base64," + Data("not audio at all, only text".utf8).base64EncodedString()
        let cases: [(fields: [String], route: String, param: String, message: String)] = [
            (["response_format=diarized_json", "known_speaker_names[]=lj", "known_speaker_references[]=\(notAudio)"],
             "transcriptions", "known_speaker_references",
             "known_speaker_references[] 1 (for `lj`) could not be read as audio"),
            (["response_format=diarized_json", "known_speaker_names[]=lj", "known_speaker_references[]=hello"],
             "transcriptions", "known_speaker_references", "known_speaker_references[] 1 (for `lj`) is not a data URL"),
            (["response_format=diarized_json", "known_speaker_names[]=lj"], "transcriptions", "known_speaker_names",
             "Give one known_speaker_references[] clip per known_speaker_names[] name; got 1 names and 0 references."),
            (["response_format=verbose_json", "speakers=2"], "transcriptions", "speakers",
             "known_speaker_names[], known_speaker_references[], speakers, min_speakers and max_speakers go with "
                + "response_format=diarized_json or diarize=true."),
            (["response_format=diarized_json", "min_speakers=3", "max_speakers=2"], "transcriptions", "speakers",
             "The minimum speakers (3) is more than the maximum (2)."),
            (["diarize=true"], "transcriptions", "diarize", "The json format holds only the text, no speakers"),
            (["response_format=diarized_json"], "translations", "response_format", "diarized_json is a transcription format"),
            // Refused as the form arrives, at the fifth reference.
            (["response_format=diarized_json"] + (1...5).flatMap { ["known_speaker_names[]=s\($0)", "known_speaker_references[]=\(notAudio)"] },
             "transcriptions", "known_speaker_references", "At most 4 known speakers are taken"),
        ]
        let home = try makeTemporaryDirectory("openspeech-no-speaker-model")
        defer { try? FileManager.default.removeItem(at: home) }
        try await TestModels.link(["whisper-tiny.en", "silero-vad"], into: home)
        let server = try await RunningServer.start(home: home)
        do {
            for (fields, route, param, message) in cases {
                let response = try await curl("\(server.baseURL)/v1/audio/\(route)",
                                              ["-F", "file=@\(clip.wav16kURL.path)"] + fields.flatMap { ["--form-string", $0] })
                #expect(response.status == 400 && response.isOpenAIError, "\(fields): \(response.body)")
                #expect(response.error?["param"] as? String == param, "\(fields): \(response.body)")
                #expect((response.error?["message"] as? String)?.hasPrefix(message) == true, "\(fields): \(response.body)")
            }
            // This server's home lacks the speaker model and it installs nothing: refused, the operator told what to do.
            let missing = try await curl("\(server.baseURL)/v1/audio/transcriptions",
                                         ["-F", "file=@\(clip.wav16kURL.path)", "-F", "response_format=diarized_json"])
            #expect(missing.status == 404 && missing.error?["code"] as? String == "model_not_installed", "\(missing.body)")
            #expect((missing.error?["message"] as? String)?.contains("openspeech models install campplus-sv-zh-en") == true)
            // A Realtime session asking for speaker labels: an error event saying the same; the session goes on.
            let realtime = try #require(try await RealtimeSessionTests.realtime(server, "no_speakers", []) as? [String: Any])
            let refused = try #require((realtime["refused"] as? [String: Any])?["error"] as? [String: Any], "\(realtime)")
            #expect(refused["code"] as? String == "model_not_installed", "\(refused)")
            #expect(refused["param"] as? String == "session.input_audio_transcription.diarize")
            #expect((refused["message"] as? String)?.contains("openspeech models install campplus-sv-zh-en") == true)
            #expect((realtime["updated"] as? [String: Any])?["type"] as? String == "transcription_session.updated", "\(realtime)")
        } catch {
            print(server.output)
            _ = try await server.stop()
            throw error
        }
        #expect(server.leftovers().isEmpty, "files left: \(server.leftovers())")
        #expect(try await server.stop() == 0)
    }

    @Test("OpenAI's labels: letters A to Z, then AA...; known names kept, letters they take skipped")
    func letters() {
        #expect([0, 1, 25, 26, 27, 51, 52, 701, 702].map(OpenAISpeakerLabels.letters)
                == ["A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA"])
        // A known speaker named "A" was heard, "host" was not: the two others are B and C.
        let turns = [SpeakerTurn(start: 0, end: 1, speaker: "Speaker 1"), SpeakerTurn(start: 1, end: 2, speaker: "A"),
                     SpeakerTurn(start: 2, end: 3, speaker: "Speaker 2"), SpeakerTurn(start: 3, end: 4, speaker: "A")]
        #expect(OpenAISpeakerLabels.turns(turns, speakers: ["Speaker 1", "A", "Speaker 2"], known: ["A"],
                                          names: ["A", "host"]).map(\.speaker) == ["B", "A", "C", "A"])
        #expect(OpenAISpeakerLabels.unlabelled(names: ["A", "host"]) == "B")
    }

    @Test("known speakers matched one to one, most similar pairs first, none below the threshold; unnamed speakers numbered apart from the names")
    func matching() {
        let x: [Float] = [1, 0, 0], y: [Float] = [0, 1, 0], z: [Float] = [0, 0, 1]
        // Reference 0 (0.8 like x, 0.6 like y) would take x first in order, leaving reference 1 (0.95 like x, 0.31
        // like y) nobody; most similar first, reference 1 takes x and reference 0 y. Nothing is like z.
        let matching = KnownSpeakerMatching(references: [[0.8, 0.6, 0], [0.95, 0.31, 0]], centroids: [x, y, z],
                                            threshold: 0.5)
        #expect(matching.referenceOfSpeaker == [1, 0, nil])
        #expect(matching.labels(names: ["Speaker 1", "host"]) == ["host", "Speaker 1", "Speaker 2"])
        #expect(KnownSpeakerMatching(references: [z], centroids: [x, z, y]).labels(names: ["Speaker 1"])
                == ["Speaker 2", "Speaker 1", "Speaker 3"])
        // Below the threshold (0.7: two people's means reach 0.55) nothing is named; one reference names one speaker,
        // however alike the others.
        #expect(KnownSpeakerMatching(references: [[0.6, 0.8, 0]], centroids: [x, y]).referenceOfSpeaker == [nil, 0])
        #expect(KnownSpeakerMatching(references: [[0.6, 0.6, 0.53]], centroids: [x, y]).referenceOfSpeaker == [nil, nil])
        #expect(KnownSpeakerMatching(references: [x], centroids: [x, x]).referenceOfSpeaker == [0, nil])
    }

    @Test("data URLs: base64 only, white space ignored, the media type as a decoder's hint")
    func dataURLs() throws {
        let url = try DataURL("data:audio/wav;base64,UklG\nRg==")
        #expect(url.data == Data("RIFF".utf8) && url.mediaType == "audio/wav" && url.fileExtension == "wav")
        #expect(try DataURL("DATA:;base64,UklGRg==").fileExtension == "bin")
        #expect(throws: DataURL.Failure.notADataURL) { try DataURL("UklGRg==") }
        #expect(throws: DataURL.Failure.notBase64) { try DataURL("data:audio/wav,RIFF") }
        #expect(throws: DataURL.Failure.invalidBase64) { try DataURL("data:audio/wav;base64,@@@") }
        #expect(throws: DataURL.Failure.empty) { try DataURL("data:audio/wav;base64,") }
    }
}
