import Foundation
import OpenSpeech
import SpeechAssets

/// `listen` with no `--language`: it starts in the environment's language, the one a person at this machine most
/// likely speaks, so that its first words come at once, and checks it against the speech on the side with the
/// multilingual model (`LikelyLanguageCheck`); when the speech is confidently another language, the transcription
/// starts again in it, from the audio kept since the start.
struct LikelyLanguageChecker: Sendable {
    /// Seconds between two checks of the audio kept so far.
    static let interval = 2.0

    let likely: Locale
    private let detection: FileTranscriber

    /// A checker of `likely`; nil when no multilingual model is installed to check with.
    init?(likely: Locale, computeType: ComputeType) {
        self.likely = likely
        detection = FileTranscriber(options: .init(locale: likely, detectsSpeech: true, computeType: computeType,
                                                   detectsLanguage: true))
        guard let missing = try? detection.missingModelIDs(), let required = try? detection.requiredModelIDs(),
              let detector = required.first, !missing.contains(detector) else { return nil }
    }

    /// Checks the audio `router` keeps every `interval` until the language is decided: confirmed (the router stops
    /// keeping audio), or another (the router restarts the transcription in it).
    func check(_ router: LiveInputRouter) async {
        var check = LikelyLanguageCheck(likely: Self.code(of: likely))
        while !router.isFinished {
            do {
                try await Task.sleep(for: .seconds(Self.interval))
                switch check.take(try await detection.detectLanguage(samples: router.kept)) {
                case .undecided:
                    continue
                case .confirmed:
                    router.stopKeeping()
                case .switchTo(let detected):
                    guard SpeechTranscriber.supportedLocale(equivalentTo: detected.locale) != nil else {
                        router.stopKeeping()
                        return
                    }
                    router.restart(in: detected)
                }
                return
            } catch {
                // Cancelled (the microphone stopped), or the check cannot run: the likely language stays.
                router.stopKeeping()
                return
            }
        }
    }

    /// The environment's language (`LC_ALL`, `LC_MESSAGES` or `LANG`, as `fr_FR.UTF-8`) when a model for it is
    /// installed, else English.
    static func environmentLocale() -> Locale {
        let environment = ProcessInfo.processInfo.environment
        let english = SpeechTranscriber.supportedLocale(equivalentTo: Locale(identifier: "en-US")) ?? Locale(identifier: "en-US")
        guard let value = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }),
              let name = value.split(separator: ".").first.flatMap({ $0.split(separator: "@").first }).map(String.init),
              name != "C", name != "POSIX",
              let locale = SpeechTranscriber.supportedLocale(equivalentTo: Locale(identifier: name)) else { return english }
        let files = FileTranscriber(options: .init(locale: locale, detectsSpeech: false))
        guard let id = try? files.transcriptionModelID(), files.store.installedDirectory(for: id) != nil else { return english }
        return locale
    }

    /// The Whisper code of `locale`'s language (`en`, `fr`...).
    static func code(of locale: Locale) -> String {
        LocaleModelResolver.whisperLanguage(of: locale) ?? "en"
    }

    /// `locale`'s language in English (`English`, `French`).
    static func name(of locale: Locale) -> String {
        Locale(identifier: "en").localizedString(forLanguageCode: code(of: locale)) ?? code(of: locale)
    }
}
