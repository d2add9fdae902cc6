import ArgumentParser

/// `openspeech models`: placeholder until the assets layer (issue 3) lands.
struct ModelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "models", abstract: "Manage speech models.")
}
