/// Something a `PhraseCountsFromTemplates` builder can hold, as Apple's `TemplateInsertable`: templates and groups
/// of them. Each adds itself to the generator that expands the templates.
public protocol TemplateInsertable {
    /// Adds this item's templates to `generator`.
    func insert(generator: SFCustomLanguageModelData.TemplatePhraseCountGenerator)
}
