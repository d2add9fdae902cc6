extension SFCustomLanguageModelData {
    /// The result builder of `SFCustomLanguageModelData(locale:identifier:version:builder:)`, as Apple's: phrase
    /// counts, phrases from templates and custom pronunciations listed in a closure, with `if`, `if`-`else`,
    /// `switch` and `for`-`in`.
    @resultBuilder
    public struct DataInsertableBuilder {
        /// Combines the statements of a block.
        public static func buildBlock(_ components: any DataInsertable...) -> any DataInsertable {
            DataInsertableGroup(items: components)
        }

        /// An `if` without `else`.
        public static func buildOptional(_ component: (any DataInsertable)?) -> any DataInsertable {
            DataInsertableGroup(items: component.map { [$0] } ?? [])
        }

        /// The first branch of an `if`-`else` or `switch`.
        public static func buildEither(first component: any DataInsertable) -> any DataInsertable {
            component
        }

        /// The second branch of an `if`-`else` or `switch`.
        public static func buildEither(second component: any DataInsertable) -> any DataInsertable {
            component
        }

        /// The iterations of a `for`-`in` loop.
        public static func buildArray(_ components: [any DataInsertable]) -> any DataInsertable {
            DataInsertableGroup(items: components)
        }
    }
}

/// Items a `DataInsertableBuilder` block collected, inserted in order.
struct DataInsertableGroup: DataInsertable {
    let items: [any DataInsertable]

    func insert(data: SFCustomLanguageModelData) {
        for item in items { item.insert(data: data) }
    }
}
