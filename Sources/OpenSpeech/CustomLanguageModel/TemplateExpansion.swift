/// One template expanded: every way of filling its `<class>` placeholders with the classes' values (a Cartesian
/// product, the first placeholder varying slowest), the template's count shared among the phrases.
///
/// The count is the total of the phrases' counts, as Apple documents it: each of the `n` phrases gets
/// `count / n`, and the first `count % n` one more. When the count is smaller than `n`, only the first `count`
/// phrases are produced (with count 1); phrases with no share are left out.
struct TemplateExpansion {
    /// A piece of a template body: literal text, or the values of a class.
    private enum Part {
        case text(String)
        case slot([String])
    }

    private let parts: [Part]
    /// The sizes of the placeholders' classes, in order.
    private let sizes: [Int]
    /// How many phrases the template stands for (saturates at `Int.max`).
    let combinations: Int
    private let count: Int
    /// How many phrases are produced: all, or only those with a share of the count.
    let produced: Int

    /// Splits `template`'s body into text and placeholders; throws `SFSpeechError(.undefinedTemplateClassName)` if
    /// a placeholder names no class in `classes`.
    init(_ template: SFCustomLanguageModelData.TemplatePhraseCountGenerator.Template, classes: [String: [String]]) throws {
        var parts: [Part] = []
        var text = ""
        var rest = Substring(template.body)
        while let open = rest.firstIndex(of: "<") {
            text += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(where: { $0 == ">" || $0 == "<" }), rest[close] == ">",
                  close > afterOpen else {
                // Not a placeholder: keep the "<" as text.
                text.append("<")
                rest = rest[afterOpen...]
                continue
            }
            let name = String(rest[afterOpen..<close])
            guard let values = classes[name] else {
                let defined = classes.keys.sorted().map { "<\($0)>" }.joined(separator: ", ")
                throw SFSpeechError(.undefinedTemplateClassName,
                    "The template \"\(template.body)\" uses <\(name)>, but no class \"\(name)\" is defined "
                    + "(defined: \(defined.isEmpty ? "none" : defined)). Define it with "
                    + "define(className:values:) or in PhraseCountsFromTemplates(classes:).")
            }
            if !text.isEmpty { parts.append(.text(text)) }
            text = ""
            parts.append(.slot(values))
            rest = rest[rest.index(after: close)...]
        }
        text += rest
        if !text.isEmpty { parts.append(.text(text)) }
        self.parts = parts
        sizes = parts.compactMap { if case .slot(let values) = $0 { values.count } else { nil } }
        combinations = sizes.reduce(1) { total, size in
            let (product, overflow) = total.multipliedReportingOverflow(by: size)
            return overflow ? Int.max : product
        }
        count = max(0, template.count)
        produced = combinations == 0 ? 0 : (count / combinations > 0 ? combinations : count % combinations)
    }

    /// The `index`th phrase (`0 ..< produced`) and its share of the count.
    func phrase(at index: Int) -> SFCustomLanguageModelData.PhraseCount {
        // The placeholders' value indices: index in mixed radix, the last placeholder varying fastest.
        var choices = [Int](repeating: 0, count: sizes.count)
        var rest = index
        for slot in sizes.indices.reversed() {
            choices[slot] = rest % sizes[slot]
            rest /= sizes[slot]
        }
        var text = ""
        var slot = 0
        for part in parts {
            switch part {
            case .text(let literal): text += literal
            case .slot(let values):
                text += values[choices[slot]]
                slot += 1
            }
        }
        let share = count / combinations + (index < count % combinations ? 1 : 0)
        return .init(phrase: Self.normalized(text), count: share)
    }

    /// Single spaces between words, none at the ends (an empty class value leaves no double space).
    static func normalized(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
