/// Something a `SFCustomLanguageModelData` builder can hold, as Apple's `DataInsertable`: phrase counts, phrase
/// count generators, phrases from templates and custom pronunciations. Each adds itself to the data.
public protocol DataInsertable {
    /// Adds this item to `data`.
    func insert(data: SFCustomLanguageModelData)
}
