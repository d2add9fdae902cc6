import Foundation
import SpeechAssets
import SpeechAudio
import Synchronization

/// Captures a device such as a microphone as `AnalyzerInput`s in a format the analyzer's modules take, as in Apple's
/// Speech (macOS/iOS 27): start `captureSession`, and pass `analyzerInputs` to `SpeechAnalyzer.analyzeSequence(_:)`
/// or `start(inputSequence:)`; stopping the session ends the sequence.
///
/// On Linux the device is a PulseAudio input (`AVCaptureDevice.default(for: .audio)`). Inputs carry the capture's
/// time (frames since the session first started): audio dropped because the analyzer fell seconds behind is skipped
/// on the analyzer's timeline, not joined up. A capture that cannot start or fails (no sound server, the device
/// gone) ends the sequence with its `AudioError`.
public final class CaptureInputSequenceProvider: Sendable {
    /// The session capturing the device: start and stop it.
    public let captureSession: AVCaptureSession
    /// The output through which the session's audio reaches this provider's sequences.
    public let captureAudioDataOutput: AVCaptureAudioDataOutput
    private let analyzerFormat: AVAudioFormat

    /// A provider with a new session capturing `captureDevice`. Throws `AudioError` when the device is gone,
    /// `SFSpeechError` `.noModel` or `.incompatibleAudioFormats` when the modules' format is not known.
    public static func providerWithSession(from captureDevice: AVCaptureDevice, compatibleWith modules: [any SpeechModule],
                                           priority: TaskPriority? = nil) async throws -> CaptureInputSequenceProvider {
        try await provider(from: captureDevice, in: AVCaptureSession(), compatibleWith: modules, priority: priority)
    }

    /// A provider on `session`, which captures `captureDevice` (added as its input if it has none). Throws
    /// `SFSpeechError` `.cannotConfigureAudioSystem` when the session captures another device.
    public static func provider(from captureDevice: AVCaptureDevice, in session: AVCaptureSession,
                                compatibleWith modules: [any SpeechModule],
                                priority: TaskPriority? = nil) async throws -> CaptureInputSequenceProvider {
        let format = try await AnalyzerInputConverter.analyzerFormat(compatibleWith: modules)
        let captured = session.inputs.compactMap { ($0 as? AVCaptureDeviceInput)?.device }
        if captured.isEmpty {
            session.addInput(try AVCaptureDeviceInput(device: captureDevice))
        } else if !captured.contains(captureDevice) {
            throw SFSpeechError(.cannotConfigureAudioSystem, "The capture session already captures "
                + "\(captured.map(\.localizedName).joined(separator: ", ")), not \(captureDevice.localizedName); "
                + "a session captures one audio device. Use a session of its own for each device.")
        }
        return try CaptureInputSequenceProvider(session: session, analyzerFormat: format, priority: priority)
    }

    /// A provider of `session`'s audio in `analyzerFormat`, through an output it adds to the session. `priority` is
    /// accepted: conversion runs on the session's delivery thread.
    public init(session: AVCaptureSession, analyzerFormat: AVAudioFormat, priority: TaskPriority?) throws {
        let output = AVCaptureAudioDataOutput()
        guard session.canAddOutput(output) else {
            throw SFSpeechError(.cannotConfigureAudioSystem, "The capture session refused the provider's output.")
        }
        session.addOutput(output)
        captureSession = session
        captureAudioDataOutput = output
        self.analyzerFormat = analyzerFormat
    }

    /// A new sequence of the audio captured from now on, converted for the analyzer; it ends when the session stops
    /// (with the capture's error if it failed).
    public var analyzerInputs: some Sendable & AsyncSequence<AnalyzerInput, any Error> {
        let (inputs, continuation) = AsyncThrowingStream.makeStream(of: AnalyzerInput.self)
        let converter = ConverterBox(AnalyzerInputConverter(analyzerFormat: analyzerFormat))
        let output = captureAudioDataOutput
        let id = output.addReceiver { event in
            converter.lock.withLock { converter in
                do {
                    switch event {
                    case .audio(let buffer, let time):
                        for input in try converter.convert(buffer, at: time) { continuation.yield(input) }
                    case .ended(let error):
                        for input in try converter.flush() { continuation.yield(input) }
                        continuation.finish(throwing: error)
                    }
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }
        continuation.onTermination = { _ in output.removeReceiver(id) }
        return inputs
    }
}

/// A sequence's converter, used by one delivery at a time.
private final class ConverterBox: Sendable {
    let lock: Mutex<AnalyzerInputConverter>
    init(_ converter: sending AnalyzerInputConverter) { lock = Mutex(converter) }
}
