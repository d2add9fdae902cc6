extension SFCustomLanguageModelData {
    /// Templates grouped by a `TemplateInsertableBuilder`, as Apple's `CompoundTemplate`: the builder makes them;
    /// code seldom needs to.
    public struct CompoundTemplate: TemplateInsertable {
        let components: [any TemplateInsertable]

        public init(_ components: [any TemplateInsertable]) {
            self.components = components
        }

        public func insert(generator: TemplatePhraseCountGenerator) {
            for component in components { component.insert(generator: generator) }
        }
    }
}
