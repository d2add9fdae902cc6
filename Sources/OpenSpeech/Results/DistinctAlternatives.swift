import Foundation

extension Array where Element == AttributedString {
    /// The first of each text, attributes aside, in order: alternatives that read the same are one.
    func distinctTexts() -> [AttributedString] {
        guard count > 1 else { return self }
        var seen: Set<String> = []
        return filter { seen.insert(String($0.characters)).inserted }
    }
}
