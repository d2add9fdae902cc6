import Foundation
import SpeechAudio
import Synchronization
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

    @Test("an app's interruption observer reads the notification's keys as on iOS; iOS 26's option names are taken")
    func interruptionObserver() throws {
        // As apps observe interruptions (OpenSpeech itself never posts one: the sound server mixes every client).
        let interruptions = Mutex<[AVAudioSession.InterruptionType]>([])
        let observer = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification,
                                                              object: nil, queue: nil) { note in
            guard let raw = note.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt,
                  let type = AVAudioSession.InterruptionType(rawValue: raw) else { return }
            let options = (note.userInfo?[AVAudioSessionInterruptionOptionKey] as? UInt)
                .map(AVAudioSession.InterruptionOptions.init(rawValue:)) ?? []
            if type == .began || options.contains(.shouldResume) { interruptions.withLock { $0.append(type) } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        NotificationCenter.default.post(name: AVAudioSession.interruptionNotification, object: nil, userInfo: [
            AVAudioSessionInterruptionTypeKey: AVAudioSession.InterruptionType.ended.rawValue,
            AVAudioSessionInterruptionOptionKey: AVAudioSession.InterruptionOptions.shouldResume.rawValue,
        ])
        #expect(interruptions.withLock { $0 } == [.ended])

        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.record, mode: .measurement, options: [.duckOthers, .allowBluetoothHFP])
        #expect(session.categoryOptions.contains(.allowBluetooth))
        try session.setAllowHapticsAndSystemSoundsDuringRecording(true)
        #expect(session.allowHapticsAndSystemSoundsDuringRecording)
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
