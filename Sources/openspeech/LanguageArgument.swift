import Foundation
import SpeechAssets

/// The value of `--language` (`-l`, `--locale`) as a locale: a language code or locale identifier (`en`, `fr`,
/// `de-DE`, `pt_BR`), or a language's English name in any case (`english`, `French`), as whisper's `--language`
/// takes either. `auto` (or nothing) means: detect it.
enum LanguageArgument {
    /// The locale `value` names; nil for `auto`.
    static func locale(_ value: String) -> Locale? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased() != "auto" else { return nil }
        return Locale(identifier: code(forName: trimmed) ?? trimmed)
    }

    /// The code of the catalog's language whose English name is `name` (Whisper's other names too: Castilian,
    /// Mandarin, Flemish...); nil when no language is named so.
    static func code(forName name: String) -> String? {
        let key = name.lowercased()
        if let code = whisperNames[key] { return code }
        let english = Locale(identifier: "en")
        let languages = Set(ModelStore().catalog.models.flatMap(\.languages))
        return languages.sorted().first { english.localizedString(forLanguageCode: $0)?.lowercased() == key }
    }

    /// Names Whisper's tokenizer gives languages where Foundation's English names differ, and Whisper's aliases.
    private static let whisperNames = [
        "javanese": "jw", "mandarin": "zh", "castilian": "es", "flemish": "nl", "valencian": "ca", "haitian": "ht",
        "haitian creole": "ht", "letzeburgesch": "lb", "luxembourgish": "lb", "pushto": "ps", "pashto": "ps",
        "panjabi": "pa", "punjabi": "pa", "moldavian": "ro", "moldovan": "ro", "sinhalese": "si", "sinhala": "si",
        "burmese": "my", "myanmar": "my", "cantonese": "yue", "nynorsk": "nn", "norwegian": "no",
    ]
}
