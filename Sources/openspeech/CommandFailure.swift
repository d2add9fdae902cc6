/// A one-line failure of a subcommand, said to the user as is.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
