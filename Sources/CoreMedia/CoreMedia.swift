// `import CoreMedia` on Linux, where Apple's framework does not exist: `CMTime`, `CMTimeRange` and their functions
// from OpenSpeech's audio layer, as speech code uses them. The package defines this module on Linux alone.
@_exported import SpeechAudio
