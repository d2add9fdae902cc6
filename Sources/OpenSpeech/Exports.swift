// `import OpenSpeech` is all an app needs, as Apple's `import Speech` is: Foundation (Locale, URL, NSObject,
// OperationQueue, Timer ...), the audio types (AVAudioFile, AVAudioPCMBuffer, AVAudioEngine, CMTime ...) and the
// asset types (AssetInventory, SFSpeechError) come with it.
@_exported import Foundation
@_exported import SpeechAssets
@_exported import SpeechAudio
// The engine's compute types name the precision in `SpeechTranscriber.EngineConfiguration` (not in Apple's API).
@_exported import enum SpeechEngine.ComputeType
