import Foundation
import SpeechEngine
import Synchronization
#if canImport(COpenCC)
import COpenCC
#endif

/// The script Chinese text is written in. Whisper writes Chinese in Simplified or Traditional characters as its
/// training data happened to, often Traditional for speech from mainland China; Apple's transcribers write the script
/// of the locale. Results in Chinese are converted to the locale's script with Open Chinese Convert (character and
/// phrase variants only: no vocabulary is replaced, so the text keeps its length and its words' times).
enum ChineseScript: Sendable {
    case simplified
    case traditionalTaiwan
    case traditionalHongKong

    /// The script for text in Whisper language `language` transcribed for `locale`: the locale's script or region
    /// when it is a Chinese locale, Simplified otherwise (Traditional, Hong Kong's, for Cantonese). Nil when the
    /// language is not Chinese.
    static func target(language: String, locale: Locale) -> ChineseScript? {
        guard language == "zh" || language == "yue" else { return nil }
        let localeLanguage = locale.language.languageCode?.identifier
        guard localeLanguage == "zh" || localeLanguage == "yue" else {
            return language == "yue" ? .traditionalHongKong : .simplified
        }
        let region = locale.region?.identifier
        // Cantonese without a region is Hong Kong's.
        let hongKong = region == "HK" || region == "MO" || (region == nil && localeLanguage == "yue")
        // Foundation may give a locale its likely script (zh-TW: Hant), or none.
        switch locale.language.script?.identifier {
        case "Hans": return .simplified
        case "Hant": return hongKong ? .traditionalHongKong : .traditionalTaiwan
        default: return hongKong ? .traditionalHongKong : region == "TW" ? .traditionalTaiwan : .simplified
        }
    }

    /// Open Chinese Convert's configuration that converts any Chinese text to this script.
    var configuration: String {
        switch self {
        case .simplified: "t2s.json"
        case .traditionalTaiwan: "s2tw.json"
        case .traditionalHongKong: "s2hk.json"
        }
    }

    /// `text` in this script; unchanged where the converter is not available (platforms without Open Chinese Convert;
    /// on Linux it comes with the library, and `ChineseScriptTests` fail without it).
    func convert(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value >= 0x2E80 }) else { return text }
        return Self.converters.withLock { converters in
            if converters[self] == nil { converters[self] = ChineseScriptConverter(configuration: configuration) }
            return converters[self]!?.convert(text) ?? text
        }
    }

    /// `words` in this script, each keeping its times: the words' text is converted as one (so phrases convert as
    /// phrases) and cut back at the words' boundaries, or word by word if the conversion changed the length.
    func convert(_ words: [Word]) -> [Word] {
        let joined = words.map(\.word).joined()
        let converted = Array(convert(joined))
        guard converted.count == joined.count else {
            return words.map { var word = $0; word.word = convert(word.word); return word }
        }
        var start = 0
        return words.map { original in
            var word = original
            let count = original.word.count
            word.word = String(converted[start..<start + count])
            start += count
            return word
        }
    }

    /// One converter per script, opened on first use (nil: it could not be opened).
    private static let converters = Mutex<[ChineseScript: ChineseScriptConverter?]>([:])
}

/// An Open Chinese Convert converter. Used only under `ChineseScript.converters`' lock.
private final class ChineseScriptConverter {
    #if canImport(COpenCC)
    private let handle: opencc_t

    /// Opens `configuration` from the library's data folder; nil when it cannot (opencc_open returns -1).
    init?(configuration: String) {
        guard let handle = opencc_open(configuration), Int(bitPattern: handle) != -1 else { return nil }
        self.handle = handle
    }

    deinit { opencc_close(handle) }

    func convert(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars -> String? in
                guard let converted = opencc_convert_utf8(handle, chars.baseAddress, chars.count) else { return nil }
                defer { opencc_convert_utf8_free(converted) }
                return String(cString: converted)
            }
        }
    }
    #else
    init?(configuration: String) { nil }
    func convert(_ text: String) -> String? { nil }
    #endif
}
