import Foundation
import SpeechEngine

/// The `session` object of a `transcription_session.update` event: only the fields the client sent (a missing field
/// leaves the session's setting as it is). `turn_detection: null` turns server VAD off.
///
/// OpenSpeech extension: `input_audio_transcription.hotwords`, a list of words and phrases (or one string, comma- or
/// space-separated) that the decoder favours, as the HTTP routes' `hotwords` field; `input_audio_transcription.diarize`,
/// true to label each item with who spoke it (`speaker` on the completed event).
package struct RealtimeSessionUpdate: Sendable, Equatable {
    enum TurnDetectionChange: Sendable, Equatable {
        /// `turn_detection: null`: the client commits the buffer itself.
        case off
        /// `server_vad`, with the settings the client gave (nil: unchanged, or the default).
        case serverVAD(threshold: Double?, prefixPaddingMilliseconds: Int?, silenceDurationMilliseconds: Int?)
        /// `semantic_vad` at this eagerness (`auto` when not given), mapped onto server VAD's silence duration.
        case semanticVAD(eagerness: String)
    }

    enum NoiseReductionChange: Sendable, Equatable {
        /// `input_audio_noise_reduction: null`.
        case off
        case on(RealtimeSessionSettings.NoiseReduction)
    }

    var inputAudioFormat: RealtimeAudioFormat?
    var model: String?
    var language: String?
    var prompt: String?
    var hotwords: [String]?
    var diarize: Bool?
    var turnDetection: TurnDetectionChange?
    var noiseReduction: NoiseReductionChange?
    /// `include` as sent (nil: not sent; `null` is an empty list).
    var include: [String]?

    init(inputAudioFormat: RealtimeAudioFormat? = nil, model: String? = nil, language: String? = nil,
         prompt: String? = nil, hotwords: [String]? = nil, diarize: Bool? = nil, turnDetection: TurnDetectionChange? = nil,
         noiseReduction: NoiseReductionChange? = nil, include: [String]? = nil) {
        self.diarize = diarize
        self.noiseReduction = noiseReduction
        self.include = include
        self.inputAudioFormat = inputAudioFormat
        self.model = model
        self.language = language
        self.prompt = prompt
        self.hotwords = hotwords
        self.turnDetection = turnDetection
    }

    init(_ session: [String: Any]) throws(RealtimeEventError) {
        if let format = session["input_audio_format"], !(format is NSNull) {
            guard let name = format as? String, let value = RealtimeAudioFormat(rawValue: name) else {
                throw RealtimeEventError(code: "invalid_value", "`input_audio_format` must be one of "
                                         + RealtimeAudioFormat.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ")
                                         + "; got \(Self.describe(format)).", param: "session.input_audio_format")
            }
            inputAudioFormat = value
        }
        if let transcription = session["input_audio_transcription"], !(transcription is NSNull) {
            guard let fields = transcription as? [String: Any] else {
                throw RealtimeEventError(code: "invalid_type", "`input_audio_transcription` must be an object.",
                                         param: "session.input_audio_transcription")
            }
            model = try Self.string(fields, "model")
            language = try Self.string(fields, "language")
            // Only the prompt's end reaches the model: the rest is not kept.
            prompt = try Self.string(fields, "prompt").map(PromptText.usableTail)
            switch fields["hotwords"] {
            case nil, is NSNull:
                break
            case let text as String:
                do { hotwords = try HotwordList.parse(text) } catch { throw Self.refusedHotwords(error) }
            case let list as [Any]:
                let strings = list.compactMap { $0 as? String }
                guard strings.count == list.count else {
                    throw RealtimeEventError(code: "invalid_type", "`hotwords` must be a string or a list of strings.",
                                             param: "session.input_audio_transcription.hotwords")
                }
                do { hotwords = try HotwordList.clean(strings) } catch { throw Self.refusedHotwords(error) }
            default:
                throw RealtimeEventError(code: "invalid_type", "`hotwords` must be a string or a list of strings.",
                                         param: "session.input_audio_transcription.hotwords")
            }
            switch fields["diarize"] {
            case nil, is NSNull: break
            case let flag as Bool: diarize = flag
            default:
                throw RealtimeEventError(code: "invalid_type", "`diarize` must be true or false.",
                                         param: "session.input_audio_transcription.diarize")
            }
        }
        if let reduction = session["input_audio_noise_reduction"] {
            if reduction is NSNull {
                noiseReduction = .off
            } else {
                let names = RealtimeSessionSettings.NoiseReduction.allCases.map { "`\($0.rawValue)`" }.joined(separator: " or ")
                guard let fields = reduction as? [String: Any], let name = fields["type"] as? String,
                      let kind = RealtimeSessionSettings.NoiseReduction(rawValue: name) else {
                    throw RealtimeEventError(code: "invalid_value", "`input_audio_noise_reduction` must be null or "
                                             + "{\"type\": \(names)}; got \(Self.describe(reduction)).",
                                             param: "session.input_audio_noise_reduction")
                }
                noiseReduction = .on(kind)
            }
        }
        if let include = session["include"] {
            let known = RealtimeSessionSettings.logprobsInclude
            switch include {
            case is NSNull:
                self.include = []
            case let list as [Any] where list.allSatisfy({ $0 as? String == known }):
                self.include = list.compactMap { $0 as? String }
            default:
                throw RealtimeEventError(code: "invalid_value", "`include` must be a list of `\(known)` (the only "
                                         + "value it takes); got \(Self.describe(include)).", param: "session.include")
            }
        }
        if let detection = session["turn_detection"] {
            if detection is NSNull {
                turnDetection = .off
            } else {
                guard let fields = detection as? [String: Any] else {
                    throw RealtimeEventError(code: "invalid_type", "`turn_detection` must be an object or null.",
                                             param: "session.turn_detection")
                }
                let type = fields["type"] as? String ?? "server_vad"
                guard type == "server_vad" || type == "semantic_vad" else {
                    throw RealtimeEventError(code: "invalid_value", "`turn_detection.type` `\(type)` is not supported "
                                             + "here: use `server_vad` or `semantic_vad`, or null to commit the buffer "
                                             + "yourself.", param: "session.turn_detection.type")
                }
                if type == "semantic_vad" {
                    let eagerness = fields["eagerness"].flatMap { $0 is NSNull ? nil : $0 } ?? "auto"
                    guard let level = eagerness as? String, ["low", "medium", "high", "auto"].contains(level) else {
                        throw RealtimeEventError(code: "invalid_value", "`turn_detection.eagerness` must be `low`, "
                                                 + "`medium`, `high` or `auto`; got \(Self.describe(eagerness)).",
                                                 param: "session.turn_detection.eagerness")
                    }
                    turnDetection = .semanticVAD(eagerness: level)
                    return
                }
                let threshold = try Self.number(fields, "threshold", in: 0...1)
                let padding = try Self.number(fields, "prefix_padding_ms", in: 0...10_000).map { Int($0) }
                let silence = try Self.number(fields, "silence_duration_ms", in: 0...10_000).map { Int($0) }
                turnDetection = .serverVAD(threshold: threshold, prefixPaddingMilliseconds: padding,
                                           silenceDurationMilliseconds: silence)
            }
        }
    }

    private static func refusedHotwords(_ refusal: HotwordList.Refusal) -> RealtimeEventError {
        RealtimeEventError(code: "invalid_value", refusal.message, param: "session.input_audio_transcription.hotwords")
    }

    private static func string(_ fields: [String: Any], _ key: String) throws(RealtimeEventError) -> String? {
        switch fields[key] {
        case nil, is NSNull: return nil
        case let value as String: return value
        case let other?:
            throw RealtimeEventError(code: "invalid_type", "`\(key)` must be a string; got \(describe(other)).",
                                     param: "session.input_audio_transcription.\(key)")
        }
    }

    private static func number(_ fields: [String: Any], _ key: String, in range: ClosedRange<Double>)
        throws(RealtimeEventError) -> Double? {
        switch fields[key] {
        case nil, is NSNull: return nil
        // JSON's true and false come as NSNumbers of ObjC type `c`: not numbers here.
        case let value as NSNumber where String(cString: value.objCType) != "c" && range.contains(value.doubleValue):
            return value.doubleValue
        case let other?:
            throw RealtimeEventError(code: "invalid_value", "`turn_detection.\(key)` must be a number from "
                                     + "\(String(format: "%g", range.lowerBound)) to \(String(format: "%g", range.upperBound)); got \(describe(other)).",
                                     param: "session.turn_detection.\(key)")
        }
    }

    private static func describe(_ value: Any) -> String {
        if let text = value as? String { return "`\(text)`" }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) {
            return String(decoding: data, as: UTF8.self)
        }
        return "\(value)"
    }
}
