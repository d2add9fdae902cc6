import Foundation
import SpeechAudio
import Synchronization
import Testing
import TestSupport

/// What a tap received: each buffer's first channel and time.
final class TapRecording: Sendable {
    struct Delivery: Sendable {
        var samples: [Float]
        var sampleTime: Int64
        var hostTime: UInt64
        var sampleRate: Double
        var channels: Int
    }

    private let deliveries = Mutex<[Delivery]>([])

    func record(_ buffer: AVAudioPCMBuffer, _ time: AVAudioTime) {
        let samples = Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength)))
        deliveries.withLock {
            $0.append(Delivery(samples: samples, sampleTime: time.sampleTime, hostTime: time.hostTime,
                               sampleRate: time.sampleRate, channels: Int(buffer.format.channelCount)))
        }
    }

    var all: [Delivery] { deliveries.withLock { $0 } }
    var count: Int { deliveries.withLock { $0.count } }
    var samples: [Float] { all.flatMap(\.samples) }
}

/// The microphone on Linux: `AVAudioEngine` capturing a real PulseAudio daemon's virtual input, into which the tests
/// play corpus audio in real time.
@Suite(.serialized) struct MicrophoneCaptureTests {
    /// A short clip at 48 kHz, as the virtual input runs.
    static func clip48k(_ id: String = "4507-16021-0012") throws -> [Float] {
        try MonoAudio.load(contentsOf: try #require(Corpus.item(id)).wav16kURL, sampleRate: 48_000)
    }

    /// Index of the first sample louder than `threshold`.
    static func onset(_ samples: [Float], threshold: Float = 1e-3) -> Int? { samples.firstIndex { abs($0) > threshold } }
    static func offset(_ samples: [Float], threshold: Float = 1e-3) -> Int? { samples.lastIndex { abs($0) > threshold } }

    static func correlation(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        let n = min(a.count, b.count)
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a.prefix(n), b.prefix(n)) {
            ab += Double(x) * Double(y); aa += Double(x) * Double(x); bb += Double(y) * Double(y)
        }
        return ab / max((aa * bb).squareRoot(), 1e-12)
    }

    /// The highest correlation of `clip` with `captured` at offsets within `span` samples of `offset`.
    static func bestCorrelation(_ captured: [Float], _ clip: [Float], around offset: Int, span: Int = 480) -> Double {
        (max(0, offset - span)...max(0, offset + span)).map { correlation(captured[min($0, captured.count)...], clip[...]) }.max() ?? 0
    }

    @Test("a clip played into the default input comes out of the tap: same length, same samples, contiguous times")
    func capturesWhatIsPlayed() async throws {
        try await withPulseAudio { daemon in
            let engine = AVAudioEngine()
            let format = engine.inputNode.outputFormat(forBus: 0)
            #expect(format.sampleRate == 48_000 && format.channelCount == 2 && format.commonFormat == .pcmFormatFloat32
                && !format.isInterleaved, "\(format)")
            let recording = TapRecording()
            engine.inputNode.installTap(onBus: 0, bufferSize: 4_096, format: format) { buffer, time in
                recording.record(buffer, time)
            }
            engine.prepare()
            try engine.start()
            #expect(engine.isRunning)
            let clip = try Self.clip48k()
            try await Task.sleep(for: .milliseconds(300))
            try await daemon.play(clip, rate: 48_000)
            try await Task.sleep(for: .milliseconds(300))
            engine.stop()
            #expect(!engine.isRunning)
            engine.inputNode.removeTap(onBus: 0)

            let deliveries = recording.all
            #expect(deliveries.allSatisfy { $0.channels == 2 && $0.sampleRate == 48_000 })
            #expect(deliveries.dropLast().allSatisfy { $0.samples.count == 4_096 }, "buffers of the size asked for")
            for (previous, next) in zip(deliveries, deliveries.dropFirst()) {
                #expect(next.sampleTime == previous.sampleTime + Int64(previous.samples.count), "contiguous sample times")
                #expect(next.hostTime >= previous.hostTime)
            }
            #expect(engine.droppedFrameCount == 0)
            let captured = recording.samples
            let start = try #require(Self.onset(captured)), end = try #require(Self.offset(captured))
            let clipStart = try #require(Self.onset(clip)), clipEnd = try #require(Self.offset(clip))
            let lengthError = Double(abs((end - start) - (clipEnd - clipStart))) / 48_000
            #expect(lengthError < 0.02, "captured \(Double(end - start) / 48_000) s of sound, the clip has \(Double(clipEnd - clipStart) / 48_000) s")
            try #require(start >= clipStart, "sound at \(start) of \(captured.count) captured frames, clip onset \(clipStart), \(deliveries.count) buffers, first at \(deliveries.first?.sampleTime ?? -1)")
            let r = Self.bestCorrelation(captured, clip, around: start - clipStart)
            #expect(r > 0.999, "correlation \(r)")
        }
    }

    @Test("a tap asking for 16 kHz mono gets it, converted")
    func tapConvertsToTheFormatItAsksFor() async throws {
        try await withPulseAudio { daemon in
            let engine = AVAudioEngine()
            let recording = TapRecording()
            let mono16k = AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1)!
            engine.inputNode.installTap(onBus: 0, bufferSize: 1_600, format: mono16k) { recording.record($0, $1) }
            try engine.start()
            let clip = try MonoAudio.load(contentsOf: try #require(Corpus.item("4507-16021-0012")).wav16kURL)
            try await daemon.play(clip, rate: 16_000)
            try await Task.sleep(for: .milliseconds(200))
            engine.stop()
            let deliveries = recording.all
            #expect(deliveries.allSatisfy { $0.channels == 1 && $0.sampleRate == 16_000 })
            let captured = recording.samples
            let start = try #require(Self.onset(captured)), clipStart = try #require(Self.onset(clip))
            // PulseAudio resamples the 16 kHz clip to the 48 kHz input, and the tap back: search ±0.25 s.
            let r = Self.bestCorrelation(captured, clip, around: start - clipStart, span: 4_000)
            #expect(r > 0.98, "correlation \(r); sound from \(start) of \(captured.count), clip from \(clipStart)")
        }
    }

    @Test("no sound server: start() throws a typed error at once, the input reports no format, nothing hangs")
    func noServer() async throws {
        try await withoutPulseAudio {
            let began = ContinuousClock.now
            let engine = AVAudioEngine()
            #expect(engine.inputNode.outputFormat(forBus: 0).channelCount == 0)
            engine.inputNode.installTap(onBus: 0, bufferSize: 1_024, format: nil) { _, _ in }
            do {
                try engine.start()
                Issue.record("start() succeeded without a server")
            } catch let error as AudioError {
                guard case .audioServerUnreachable = error else { Issue.record("\(error)"); return }
                #expect("\(error)".contains("PULSE_SERVER"))
            }
            #expect(!engine.isRunning)
            #expect(throws: AudioError.self) { try AVAudioSession.sharedInstance().setActive(true) }
            #expect(AVAudioSession.sharedInstance().availableInputs == nil)
            engine.stop()
            #expect(ContinuousClock.now - began < .seconds(3))
        }
    }

    @Test("the preferred input gone before start(): a typed error naming it and the inputs there are")
    func noSuchDevice() async throws {
        try await withPulseAudio { daemon in
            let module = try daemon.addVirtualInput("usbmic")
            let session = AVAudioSession.sharedInstance()
            try session.setActive(true, options: .notifyOthersOnDeactivation)
            let inputs = try #require(session.availableInputs)
            let port = try #require(inputs.first { $0.uid == "usbmic.monitor" }, "\(inputs)")
            #expect(inputs.contains { $0.uid == "virtual.monitor" } && port.portType == .virtual)
            try session.setPreferredInput(port)
            defer { try? session.setPreferredInput(nil) }
            try daemon.pactl(["unload-module", module])
            let engine = AVAudioEngine()
            #expect(throws: AudioError.audioDeviceNotFound(name: "usbmic.monitor", available: ["virtual.monitor"])) {
                try engine.start()
            }
            #expect(!engine.isRunning)
        }
    }

    @Test("an input that disappears mid-stream ends capture with an error, promptly")
    func inputDisappears() async throws {
        try await withPulseAudio { daemon in
            let module = try daemon.addVirtualInput("headset")
            let session = AVAudioSession.sharedInstance()
            try session.setPreferredInput(try #require(session.availableInputs?.first { $0.uid == "headset.monitor" }))
            defer { try? session.setPreferredInput(nil) }
            let engine = AVAudioEngine()
            let failure = Mutex<AudioError?>(nil)
            engine.captureFailureHandler = { error in failure.withLock { $0 = error } }
            let recording = TapRecording()
            engine.inputNode.installTap(onBus: 0, bufferSize: 960, format: nil) { recording.record($0, $1) }
            try engine.start()
            // A new null sink delivers its first block after about 2 s.
            let started = ContinuousClock.now + .seconds(4)
            while recording.count == 0, ContinuousClock.now < started { try await Task.sleep(for: .milliseconds(20)) }
            #expect(recording.count > 0)
            try daemon.pactl(["unload-module", module])
            let deadline = ContinuousClock.now + .seconds(3)
            while failure.withLock({ $0 }) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            let error = try #require(failure.withLock { $0 }, "no error within 3 s of the input going away")
            guard case .captureFailed(let detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.contains("headset.monitor"))
            #expect(!engine.isRunning)
            #expect(engine.captureError == error)
            let began = ContinuousClock.now
            engine.stop()
            #expect(ContinuousClock.now - began < .milliseconds(500))
        }
    }

    @Test("a tap block that stalls 5 s: capture goes on, the drop is counted, delivery resumes at the present")
    func stallingConsumer() async throws {
        try await withPulseAudio { _ in
            let engine = AVAudioEngine()
            let recording = TapRecording()
            let stalled = Atomic(false)
            engine.inputNode.installTap(onBus: 0, bufferSize: 4_800, format: nil) { buffer, time in
                if !stalled.exchange(true, ordering: .relaxed) { Thread.sleep(forTimeInterval: 5) }
                recording.record(buffer, time)
            }
            try engine.start()
            try await Task.sleep(for: .seconds(7))
            let dropped = engine.droppedFrameCount
            engine.stop()
            // 5 s stalled with a 2 s queue: about 3 s dropped.
            #expect(dropped > 48_000 * 2 && dropped < 48_000 * 4, "dropped \(dropped) frames")
            let deliveries = recording.all
            let jumps = zip(deliveries, deliveries.dropFirst()).filter { $1.sampleTime != $0.sampleTime + Int64($0.samples.count) }
            #expect(jumps.count == 1, "one gap in the sample times, where the drop was")
            let last = try #require(deliveries.last)
            #expect(Double(last.sampleTime) / 48_000 > 6, "delivery continued after the stall")
        }
    }

    @Test("stop() ends delivery at once; start() again resumes with later sample times; removeTap stops a tap")
    func stopThenStart() async throws {
        try await withPulseAudio { _ in
            let engine = AVAudioEngine()
            let recording = TapRecording()
            engine.inputNode.installTap(onBus: 0, bufferSize: 480, format: nil) { recording.record($0, $1) }
            try engine.start()
            try await Task.sleep(for: .milliseconds(500))
            engine.stop()
            let afterStop = recording.count
            #expect(afterStop > 20)
            try await Task.sleep(for: .milliseconds(300))
            #expect(recording.count == afterStop, "no buffer after stop() returned")
            let lastTime = try #require(recording.all.last?.sampleTime)

            try engine.start()
            try await Task.sleep(for: .milliseconds(500))
            #expect(engine.isRunning)
            let resumed = recording.all.dropFirst(afterStop)
            #expect(resumed.count > 20)
            #expect((resumed.first?.sampleTime ?? 0) > lastTime)
            engine.inputNode.removeTap(onBus: 0)
            let afterRemove = recording.count
            try await Task.sleep(for: .milliseconds(300))
            #expect(recording.count == afterRemove, "no buffer after removeTap returned")
            engine.stop()
        }
    }

    @Test("pause() keeps the input open but delivers nothing; start() resumes it; stop() then releases it")
    func pauseThenResume() async throws {
        try await withPulseAudio { daemon in
            let engine = AVAudioEngine()
            let recording = TapRecording()
            engine.inputNode.installTap(onBus: 0, bufferSize: 480, format: nil) { recording.record($0, $1) }
            try engine.start()
            try await Task.sleep(for: .milliseconds(500))
            engine.pause()
            #expect(!engine.isRunning)
            try await Task.sleep(for: .milliseconds(200)) // audio captured before the pause is still delivered
            let atPause = recording.count
            #expect(atPause > 20)
            try await Task.sleep(for: .milliseconds(500))
            #expect(recording.count <= atPause + 1, "no audio while paused (\(recording.count - atPause) buffers)")
            let paused = try daemon.pactl(["list", "source-outputs"])
            #expect(paused.contains("Corked: yes"), "the input stays open, corked, while paused:\n\(paused)")

            try engine.start()
            #expect(engine.isRunning)
            try await Task.sleep(for: .milliseconds(500))
            let resumed = Array(recording.all.dropFirst(atPause))
            #expect(resumed.count > 20, "delivery resumed")
            #expect(try daemon.pactl(["list", "source-outputs"]).contains("Corked: no"))
            engine.stop()
            try await Task.sleep(for: .milliseconds(200))
            #expect(try daemon.pactl(["list", "short", "source-outputs"]).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
                    "stop() releases the input")
        }
    }
}
