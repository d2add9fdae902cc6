// `import AVFoundation` on Linux, where Apple's framework does not exist: OpenSpeech's audio types under Apple's
// names (`AVAudioFile`, `AVAudioPCMBuffer`, `AVAudioFormat`, `AVAudioConverter`, `AVAudioEngine`, `AVAudioSession`,
// `AVURLAsset`, `CMTime`...), so code written for Apple's Speech framework compiles with only `import Speech`
// changed. Only what speech code uses is there; the package defines this module on Linux alone.
@_exported import SpeechAudio
