extension SFCustomLanguageModelData {
    /// Phrase counts from templates, as Apple's `PhraseCountsFromTemplates`: classes of words, and templates
    /// listed in a builder closure whose `<class>` placeholders take each of a class's words in turn (see
    /// `TemplatePhraseCountGenerator`).
    public struct PhraseCountsFromTemplates: DataInsertable {
        let classes: [String: [String]]
        let templates: any TemplateInsertable

        /// Classes by name (used in templates as `<name>`), and the templates.
        public init(classes: [String: [String]], @TemplateInsertableBuilder builder: () -> any TemplateInsertable) {
            self.classes = classes
            templates = builder()
        }

        /// Adds the templates to `data` as one `TemplatePhraseCountGenerator` with these classes.
        public func insert(data: SFCustomLanguageModelData) {
            let generator = TemplatePhraseCountGenerator()
            for (name, values) in classes.sorted(by: { $0.key < $1.key }) {
                generator.define(className: name, values: values)
            }
            templates.insert(generator: generator)
            data.insert(phraseCountGenerator: generator)
        }
    }
}
