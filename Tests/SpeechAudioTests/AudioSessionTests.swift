import Foundation
import SpeechAudio
import Testing

/// `AVAudioSession` and `AVAudioApplication` as iOS code uses them (seed 003's permission request and session set-up),
/// with Linux's answers: settings recorded, permission granted.
@Suite struct AudioSessionTests {
    /// A non-Sendable owner whose permission callback touches `self`, as app code does.
    final class Recorder {
        var granted = false
        func ask() {
            AVAudioSession.sharedInstance().requestRecordPermission { granted in
                self.granted = granted
            }
        }
    }

    @Test("record permission is granted through every entry point")
    func permission() async {
        let micStatus: Bool
        if #available(iOS 17, *) {
            micStatus = await AVAudioApplication.requestRecordPermission()
        } else {
            micStatus = await withCheckedContinuation { continuation in
                AVAudioSession.sharedInstance().requestRecordPermission { granted in
                    continuation.resume(returning: granted)
                }
            }
        }
        #expect(micStatus)
        #expect(AVAudioApplication.shared.recordPermission == .granted)
        #expect(AVAudioSession.sharedInstance().recordPermission == .granted)
        let recorder = Recorder()
        recorder.ask()
        #expect(recorder.granted)
    }

    @Test("category, mode and options are recorded")
    func categoryModeOptions() throws {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.record, mode: .measurement, options: .duckOthers)
        #expect(session.category == .record && session.mode == .measurement && session.categoryOptions == .duckOthers)
        try session.setCategory(.playAndRecord, mode: .spokenAudio, options: [.defaultToSpeaker, .allowBluetooth])
        #expect(session.categoryOptions.contains(.allowBluetooth) && session.mode == .spokenAudio)
        try session.setCategory(.playAndRecord)
        #expect(session.category == .playAndRecord)
        try session.setActive(false, options: .notifyOthersOnDeactivation)
    }

    @Test("AVAudioTime: sample and host times, extrapolation from an anchor")
    func audioTime() throws {
        let anchor = AVAudioTime(hostTime: AVAudioTime.hostTime(forSeconds: 10), sampleTime: 48_000, atRate: 48_000)
        let later = AVAudioTime(sampleTime: 96_000, atRate: 48_000)
        #expect(!later.isHostTimeValid && later.isSampleTimeValid)
        let full = try #require(later.extrapolateTime(fromAnchor: anchor))
        #expect(full.isHostTimeValid && abs(AVAudioTime.seconds(forHostTime: full.hostTime) - 11) < 1e-6)
        let byHost = try #require(AVAudioTime(hostTime: AVAudioTime.hostTime(forSeconds: 10.5)).extrapolateTime(fromAnchor: anchor))
        #expect(byHost.sampleTime == 72_000 && byHost.sampleRate == 48_000)
    }
}
