// `import Speech` on Linux, where Apple's framework does not exist: OpenSpeech under the framework's name, so a file
// written for Apple's Speech compiles with no edit at all (`import Speech`, `@preconcurrency import Speech`,
// `#if canImport(Speech)`). As Apple's module does, it brings Foundation and the AVFoundation and Core Media types
// Speech's API is written in (`AVAudioPCMBuffer`, `AVAudioEngine`, `CMTime` ...). OpenSpeech's own additions
// (`FileTranscriber`, `EngineConfiguration` ...) come with it too, but code that uses them says `import OpenSpeech`,
// the spelling that builds wherever the package does. The package defines this module on Linux alone; elsewhere
// the system's Speech stands.
@_exported import OpenSpeech
