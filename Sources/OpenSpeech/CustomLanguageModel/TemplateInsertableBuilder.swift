extension SFCustomLanguageModelData {
    /// The result builder of `PhraseCountsFromTemplates(classes:builder:)`, as Apple's: templates listed in a
    /// closure, with `if`, `if`-`else`, `switch` and `for`-`in`.
    @resultBuilder
    public struct TemplateInsertableBuilder {
        /// Combines the statements of a block.
        public static func buildBlock(_ components: any TemplateInsertable...) -> any TemplateInsertable {
            CompoundTemplate(components)
        }

        /// An `if` without `else`.
        public static func buildOptional(_ component: (any TemplateInsertable)?) -> any TemplateInsertable {
            CompoundTemplate(component.map { [$0] } ?? [])
        }

        /// The first branch of an `if`-`else` or `switch`.
        public static func buildEither(first component: any TemplateInsertable) -> any TemplateInsertable {
            component
        }

        /// The second branch of an `if`-`else` or `switch`.
        public static func buildEither(second component: any TemplateInsertable) -> any TemplateInsertable {
            component
        }

        /// The iterations of a `for`-`in` loop.
        public static func buildArray(_ components: [any TemplateInsertable]) -> any TemplateInsertable {
            CompoundTemplate(components)
        }
    }
}
