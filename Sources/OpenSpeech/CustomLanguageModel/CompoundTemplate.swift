extension SFCustomLanguageModelData {
    /// Templates grouped by a `TemplateInsertableBuilder`, as Apple's `CompoundTemplate`: the builder makes them;
    /// code seldom needs to.
    public struct CompoundTemplate: TemplateInsertable {
        let components: [any TemplateInsertable]

        /// A group of these templates, inserted in order.
        public init(_ components: [any TemplateInsertable]) {
            self.components = components
        }

        /// Inserts each of the group's templates into `generator`, in order.
        public func insert(generator: TemplatePhraseCountGenerator) {
            for component in components { component.insert(generator: generator) }
        }
    }
}
