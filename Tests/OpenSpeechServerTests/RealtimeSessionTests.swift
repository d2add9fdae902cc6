import Foundation
import Testing
import TestSupport

/// OpenAI's Realtime transcription sessions over WebSocket, through the official `openai` package's realtime client
/// (Clients/realtime_calls.py), on corpus speech converted to the API's 24 kHz PCM16.
@Suite(.serialized) struct RealtimeSessionTests {
    static let completed = "conversation.item.input_audio_transcription.completed"
    static let delta = "conversation.item.input_audio_transcription.delta"

    /// `clip` as a 24 kHz 16-bit mono WAV in `folder`.
    static func wav24k(_ clip: CorpusItem, in folder: URL) async throws -> URL {
        let file = folder.appendingPathComponent("\(clip.id)-24k.wav")
        try await runCommand("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", clip.originalURL.path, "-ac", "1",
                                  "-ar", "24000", "-c:a", "pcm_s16le", file.path])
        return file
    }

    /// Runs Clients/realtime_calls.py and returns its JSON output.
    static func realtime(_ server: RunningServer, _ mode: String, _ arguments: [String],
                         key: String = RunningServer.apiKey) async throws -> Any {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/realtime_calls.py")
        let result = try await runCommand("python3", [script.path, "\(server.baseURL)/v1", key, mode] + arguments)
        return try JSONSerialization.jsonObject(with: result.stdout)
    }

    static func events(_ server: RunningServer, _ wav: URL, chunkMilliseconds: Int, vad: Bool) async throws -> [[String: Any]] {
        try #require(try await realtime(server, "stream", [wav.path, String(chunkMilliseconds), vad ? "on" : "off"])
                     as? [[String: Any]])
    }

    static func types(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["type"] as? String } }

    static func transcripts(_ events: [[String: Any]]) -> [String] {
        events.filter { $0["type"] as? String == completed }.compactMap { $0["transcript"] as? String }
    }

    @Test("manual commit: deltas then the completed text, the file transcription's words, whatever the append size")
    func manualCommit() async throws {
        let clip = try #require(Corpus.item("1221-135766-0001"))
        let folder = try makeTemporaryDirectory("openspeech-realtime")
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = try await Self.wav24k(clip, in: folder)
        let server = try await RunningServer.start()
        var runs: [[[String: Any]]] = []
        do {
            for chunk in [20, 170, 1000] { runs.append(try await Self.events(server, wav, chunkMilliseconds: chunk, vad: false)) }
        } catch {
            print(server.output)
            _ = try await server.stop()
            throw error
        }
        #expect(try await server.stop() == 0)

        let (status, cli) = try await OpenSpeechExecutable.run(
            ["transcribe", wav.path, "--locale", "en-US", "--model", "whisper-tiny.en", "--beam-size", "1", "--quiet"],
            environment: ["OPENSPEECH_HOME": TestModels.home.path])
        #expect(status == 0, "\(cli)")
        let fileText = cli.trimmingCharacters(in: .whitespacesAndNewlines)

        for (chunk, events) in zip([20, 170, 1000], runs) {
            let types = Self.types(events)
            #expect(Array(types.prefix(3)) == ["transcription_session.created", "transcription_session.updated",
                                               "input_audio_buffer.committed"], "\(chunk) ms: \(types)")
            #expect(types.last == Self.completed, "\(chunk) ms: \(types)")
            #expect(!types.contains("error") && !types.contains("input_audio_buffer.speech_started"), "\(types)")
            let transcript = try #require(Self.transcripts(events).first)
            #expect(transcript == fileText, "\(chunk) ms: realtime and file transcription differ")
            let deltas = events.filter { $0["type"] as? String == Self.delta }.compactMap { $0["delta"] as? String }
            #expect(!deltas.isEmpty && deltas.joined() == transcript, "\(deltas)")
            let committed = try #require(events.first { $0["type"] as? String == "input_audio_buffer.committed" })
            #expect(events.filter { $0["type"] as? String == Self.completed || $0["type"] as? String == Self.delta }
                .allSatisfy { $0["item_id"] as? String == committed["item_id"] as? String })
            let session = try #require(events[1]["session"] as? [String: Any])
            #expect(session["turn_detection"] is NSNull && session["input_audio_format"] as? String == "pcm16")
        }
        let rate = wordErrorRate(fileText, clip.transcript)
        print("realtime manual commit WER \(rate): \(fileText)")
        #expect(rate <= 0.1)
    }

    @Test("server VAD: speech_started/stopped, committed items, deltas and completed text; the same whatever the append size")
    func serverVAD() async throws {
        let clip = try #require(Corpus.item("jfk"))
        let folder = try makeTemporaryDirectory("openspeech-realtime")
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = try await Self.wav24k(clip, in: folder)
        let server = try await RunningServer.start()
        var runs: [[[String: Any]]] = []
        do {
            for chunk in [20, 100, 333] { runs.append(try await Self.events(server, wav, chunkMilliseconds: chunk, vad: true)) }
        } catch {
            print(server.output)
            _ = try await server.stop()
            throw error
        }
        #expect(try await server.stop() == 0)

        /// What must not depend on the append size: the turns' times and the items' texts.
        func outline(_ events: [[String: Any]]) -> [String] {
            events.compactMap { event in
                switch event["type"] as? String {
                case "input_audio_buffer.speech_started": "started \(event["audio_start_ms"] as? Int ?? -1)"
                case "input_audio_buffer.speech_stopped": "stopped \(event["audio_end_ms"] as? Int ?? -1)"
                case Self.completed: "text \(event["transcript"] as? String ?? "")"
                default: nil
                }
            }.sorted()
        }
        let first = runs[0]
        print("server VAD events: \(outline(first))")
        for (chunk, events) in zip([20, 100, 333], runs) {
            #expect(outline(events) == outline(first), "\(chunk) ms differs from 20 ms")
            // Each turn: started, stopped, committed, completed for one item id, in that order.
            let started = events.filter { $0["type"] as? String == "input_audio_buffer.speech_started" }
            #expect(!started.isEmpty)
            for start in started {
                let item = try #require(start["item_id"] as? String)
                let order = events.filter { $0["item_id"] as? String == item }.compactMap { $0["type"] as? String }
                    .filter { $0 != Self.delta }
                #expect(order == ["input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped",
                                  "input_audio_buffer.committed", Self.completed], "\(order)")
                let stop = try #require(events.first { $0["item_id"] as? String == item
                    && $0["type"] as? String == "input_audio_buffer.speech_stopped" })
                #expect((stop["audio_end_ms"] as? Int ?? 0) > (start["audio_start_ms"] as? Int ?? 0))
            }
        }
        let text = Self.transcripts(first).joined(separator: " ")
        let rate = wordErrorRate(text, clip.transcript)
        print("realtime server VAD WER \(rate): \(text)")
        #expect(rate <= 0.15)
    }

    @Test("live speech: deltas while the person is still speaking, before the commit; the completed text unchanged")
    func volatileDeltas() async throws {
        let clip = try #require(Corpus.item("1221-135766-0001"))
        let folder = try makeTemporaryDirectory("openspeech-realtime")
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = try await Self.wav24k(clip, in: folder)
        let server = try await RunningServer.start()
        let events: [[String: Any]]
        do {
            events = try #require(try await Self.realtime(server, "paced", [wav.path]) as? [[String: Any]])
        } catch {
            print(server.output)
            _ = try await server.stop()
            throw error
        }
        #expect(try await server.stop() == 0)
        func words(_ text: String) -> [String] {
            text.lowercased().split(whereSeparator: \.isWhitespace).map { $0.filter { $0.isLetter || $0.isNumber } }
                .filter { !$0.isEmpty }
        }
        let completed = events.filter { $0["type"] as? String == Self.completed }
        #expect(!completed.isEmpty, "\(Self.types(events))")
        var earlyWords = 0
        for done in completed {
            let item = try #require(done["item_id"] as? String)
            let transcript = try #require(done["transcript"] as? String)
            let mine = events.filter { $0["item_id"] as? String == item }
            let types = mine.compactMap { $0["type"] as? String }
            // Every delta comes before the completed event.
            #expect(types.last == Self.completed, "\(types)")
            let stop = types.firstIndex(of: "input_audio_buffer.speech_stopped") ?? types.count
            let deltas = mine.filter { $0["type"] as? String == Self.delta }.compactMap { $0["delta"] as? String }
            let early = mine[..<stop].filter { $0["type"] as? String == Self.delta }.compactMap { $0["delta"] as? String }
            let earlyText = early.joined()
            earlyWords += words(earlyText).count
            // The words sent before the commit are the final text's first words, give or take a few.
            let finalStart = words(transcript).prefix(words(earlyText).count).joined(separator: " ")
            #expect(wordErrorRate(earlyText, finalStart) <= 0.25, "early \(earlyText) / final \(transcript)")
            // All the deltas add up to the completed text (word for word), unless the final text contradicted the
            // early words, in which case they stop there.
            let all = words(deltas.joined())
            #expect(all == words(transcript) || all == words(earlyText), "deltas \(deltas) / final \(transcript)")
            print("item: early deltas \(early) then \(deltas.count - early.count) more; completed: \(transcript)")
        }
        // Speech of 16 s in real time: several words go out while it is still being spoken.
        #expect(earlyWords >= 5, "\(events.compactMap { $0["type"] as? String })")
        let text = Self.transcripts(events).joined(separator: " ")
        #expect(wordErrorRate(text, clip.transcript) <= 0.15, "\(text)")
    }

    @Test("malformed JSON, unknown events, bad base64, bad settings, binary: error events, and the session goes on")
    func badEvents() async throws {
        let clip = try #require(Corpus.item("1221-135766-0002"))
        let folder = try makeTemporaryDirectory("openspeech-realtime")
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = try await Self.wav24k(clip, in: folder)
        let server = try await RunningServer.start()
        let result: [String: Any]
        do {
            result = try #require(try await Self.realtime(server, "errors", [wav.path]) as? [String: Any])
        } catch {
            print(server.output)
            _ = try await server.stop()
            throw error
        }
        #expect(try await server.stop() == 0)
        let expected: [String: (code: String, param: String?)] = [
            "malformed": ("invalid_json", nil), "not_object": ("invalid_json", nil), "unknown": ("unknown_event", "type"),
            "bad_base64": ("invalid_value", "audio"), "no_audio": ("missing_required_parameter", "audio"),
            "bad_threshold": ("invalid_value", "session.turn_detection.threshold"),
            "bad_format": ("invalid_value", "session.input_audio_format"),
            "bad_model": ("model_not_found", "session.input_audio_transcription.model"),
            "empty_commit": ("input_audio_buffer_commit_empty", nil), "binary": ("invalid_message", nil),
        ]
        for (name, want) in expected {
            let event = try #require(result[name] as? [String: Any], "\(name)")
            #expect(event["type"] as? String == "error", "\(name): \(event)")
            let error = try #require(event["error"] as? [String: Any], "\(name)")
            #expect(error["code"] as? String == want.code, "\(name): \(error)")
            #expect((error["param"] as? String) == want.param, "\(name): \(error)")
            #expect((error["message"] as? String)?.isEmpty == false && error["type"] as? String == "invalid_request_error")
            #expect(error.keys.contains("event_id"))
        }
        #expect(((result["unknown"] as? [String: Any])?["error"] as? [String: Any])?["event_id"] as? String == "client_7")
        // The rejected updates changed nothing; the valid one applied.
        let updated = try #require(result["updated"] as? [String: Any])
        #expect(updated["type"] as? String == "transcription_session.updated")
        let after = try #require(result["after"] as? [[String: Any]])
        let text = try #require(Self.transcripts(after).first)
        #expect(wordErrorRate(text, clip.transcript) <= 0.15, "\(text)")
    }

    @Test("the API key applies to the WebSocket; a wrong key or intent gets an error event and a close, no session")
    func refused() async throws {
        let server = try await RunningServer.start()
        let result: [String: Any]
        let plain: CurlResponse, wrongKey: CurlResponse
        do {
            result = try #require(try await Self.realtime(server, "refused", []) as? [String: Any])
            plain = try await curl("\(server.baseURL)/v1/realtime?intent=transcription", [])
            wrongKey = try await curl("\(server.baseURL)/v1/realtime", [], key: "wrong")
        } catch {
            print(server.output)
            _ = try await server.stop()
            throw error
        }
        #expect(try await server.stop() == 0)
        for (name, code) in [("wrong_key", "invalid_api_key"), ("no_intent", "unsupported_intent")] {
            let outcome = try #require(result[name] as? [String: Any], "\(name)")
            let event = try #require(outcome["event"] as? [String: Any])
            #expect(event["type"] as? String == "error", "\(name): \(event)")
            #expect((event["error"] as? [String: Any])?["code"] as? String == code, "\(name): \(event)")
            #expect(outcome["closed"] as? Int == 1008, "\(name): \(outcome)")
        }
        // A plain HTTP request to the endpoint is told to use a WebSocket; with a wrong key, it gets 401 first.
        #expect(plain.status == 400 && plain.error?["code"] as? String == "websocket_required", "\(plain.body)")
        #expect(wrongKey.status == 401 && wrongKey.isOpenAIError, "\(wrongKey.body)")
    }

    @Test("--max-realtime-sessions: one over the limit gets an error event and a close (1013); a freed place is reused; /metrics counts")
    func sessionLimit() async throws {
        let server = try await RunningServer.start(["--max-realtime-sessions", "2"])
        let result: [String: Any]
        var metrics = ""
        do {
            result = try #require(try await Self.realtime(server, "limit", ["2"]) as? [String: Any])
            // The server sees the clients' closes shortly after they happen.
            for _ in 0..<50 {
                metrics = try await curl("\(server.baseURL)/metrics", []).body
                if metrics.contains("openspeech_realtime_sessions_open 0") { break }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
        } catch {
            print(server.output)
            _ = try await server.stop()
            throw error
        }
        #expect(try await server.stop() == 0)
        let over = try #require(result["over"] as? [String: Any])
        let event = try #require(over["event"] as? [String: Any])
        let error = try #require(event["error"] as? [String: Any], "\(event)")
        #expect(event["type"] as? String == "error")
        #expect(error["code"] as? String == "session_limit_reached" && error["type"] as? String == "rate_limit_error")
        #expect((error["message"] as? String)?.contains("--max-realtime-sessions") == true, "\(error)")
        #expect(over["closed"] as? Int == 1013, "\(over)")
        #expect((result["after_close"] as? [String: Any])?["type"] as? String == "transcription_session.created")

        func value(_ line: String) -> Double? {
            metrics.split(separator: "\n").first { $0.hasPrefix(line + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        #expect(value("openspeech_realtime_sessions_open") == 0, "\(metrics)")
        #expect(value(#"openspeech_realtime_sessions_total{outcome="accepted"}"#) == 3, "\(metrics)")
        #expect(value(#"openspeech_realtime_sessions_total{outcome="limited"}"#) == 1, "\(metrics)")
        #expect(value("openspeech_realtime_audio_seconds_total") == 1.5, "\(metrics)")
    }

    @Test("semantic_vad (eagerness), far_field noise reduction and logprobs: accepted, echoed, and in effect")
    func sessionOptions() async throws {
        let clip = try #require(Corpus.item("jfk"))
        let folder = try makeTemporaryDirectory("openspeech-realtime")
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = try await Self.wav24k(clip, in: folder)
        let server = try await RunningServer.start()
        var runs: [String: [[String: Any]]] = [:]
        do {
            for eagerness in ["high", "low"] {
                runs[eagerness] = try #require(try await Self.realtime(server, "options", [wav.path, eagerness]) as? [[String: Any]])
            }
        } catch {
            print(server.output)
            _ = try await server.stop()
            throw error
        }
        #expect(try await server.stop() == 0)
        var turns: [String: Int] = [:]
        for (eagerness, events) in runs {
            let session = try #require(events[1]["session"] as? [String: Any], "\(events[1])")
            let detection = try #require(session["turn_detection"] as? [String: Any])
            #expect(detection["type"] as? String == "semantic_vad" && detection["eagerness"] as? String == eagerness)
            #expect((session["input_audio_noise_reduction"] as? [String: Any])?["type"] as? String == "far_field")
            #expect(session["include"] as? [String] == ["item.input_audio_transcription.logprobs"])
            #expect(!Self.types(events).contains("error"), "\(Self.types(events))")
            turns[eagerness] = events.filter { $0["type"] as? String == "input_audio_buffer.speech_stopped" }.count
            let completed = events.filter { $0["type"] as? String == Self.completed }
            #expect(!completed.isEmpty)
            for done in completed {
                let transcript = try #require(done["transcript"] as? String)
                let logprobs = try #require(done["logprobs"] as? [[String: Any]], "\(done)")
                let tokens = logprobs.compactMap { $0["token"] as? String }
                #expect(tokens.count == logprobs.count && tokens.isEmpty == transcript.isEmpty, "\(done)")
                #expect(wordErrorRate(tokens.joined(), transcript) == 0, "\(tokens) / \(transcript)")
                #expect(logprobs.allSatisfy { ($0["logprob"] as? Double).map { $0 <= 0 && $0 > -50 } == true })
                #expect(logprobs.allSatisfy { ($0["bytes"] as? [Int]) == ($0["token"] as? String).map { Array($0.utf8).map(Int.init) } })
            }
            let text = Self.transcripts(events).joined(separator: " ")
            print("semantic_vad \(eagerness): \(turns[eagerness] ?? 0) turns: \(text)")
            #expect(wordErrorRate(text, clip.transcript) <= 0.15, "\(eagerness): \(text)")
        }
        // A high eagerness ends turns at the speech's short pauses (400 ms); a low one waits for 1.2 s of silence,
        // longer than any pause in the clip and than the second of silence after it: the commit ends the one turn.
        #expect((turns["high"] ?? 0) >= 3 && turns["low"] == 0, "\(turns)")
    }

    @Test("diarize: every completed item names its speaker, the same label for each person's turns, one per person")
    func speakers() async throws {
        try await TestModels.directory(for: "campplus-sv-zh-en")
        let folder = try makeTemporaryDirectory("openspeech-realtime")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (samples, spans, _) = try DiarizedTranscriptionTests.conversation()
        let wav16k = try DiarizedTranscriptionTests.write(samples, "conversation", in: folder)
        let wav = folder.appendingPathComponent("conversation-24k.wav")
        try await runCommand("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", wav16k.path, "-ar", "24000",
                                        "-c:a", "pcm_s16le", wav.path])
        let server = try await RunningServer.start()
        let events: [[String: Any]]
        do {
            events = try #require(try await Self.realtime(server, "speakers", [wav.path]) as? [[String: Any]])
        } catch {
            print(server.output)
            _ = try await server.stop()
            throw error
        }
        #expect(try await server.stop() == 0)
        let session = try #require(events[1]["session"] as? [String: Any])
        #expect((session["input_audio_transcription"] as? [String: Any])?["diarize"] as? Bool == true)
        // Each item's start (speech_started), the turn it falls in, and the label its completed event gives.
        var starts: [String: Double] = [:]
        for event in events where event["type"] as? String == "input_audio_buffer.speech_started" {
            if let item = event["item_id"] as? String, let ms = event["audio_start_ms"] as? Int { starts[item] = Double(ms) / 1000 }
        }
        var labelsOf: [String: [String: Int]] = [:]
        let completed = events.filter { $0["type"] as? String == Self.completed }
        #expect(completed.count >= spans.count, "\(Self.types(events))")
        for done in completed {
            let speaker = try #require(done["speaker"] as? String, "\(done)")
            guard let item = done["item_id"] as? String, let start = starts[item],
                  let turn = spans.first(where: { $0.start <= start + 0.5 && start + 0.5 < $0.end }) else { continue }
            labelsOf[turn.speaker, default: [:]][speaker, default: 0] += 1
        }
        let reader = try #require(labelsOf["reader"]), lj = try #require(labelsOf["lj"])
        #expect(reader.count == 1 && lj.count == 1, "one label per person: \(labelsOf)")
        #expect(reader.keys.first == "Speaker 1" && lj.keys.first == "Speaker 2", "\(labelsOf)")
    }
}
