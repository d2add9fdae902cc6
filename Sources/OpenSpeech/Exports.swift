// `import OpenSpeech` is all an app needs: the audio types (AVAudioFile, AVAudioPCMBuffer, CMTime ...) and
// the asset types (AssetInventory, SFSpeechError) come with it, as they do with Apple's `import Speech`.
@_exported import SpeechAssets
@_exported import SpeechAudio
// The engine's compute types name the precision in `SpeechTranscriber.EngineConfiguration` (not in Apple's API).
@_exported import enum SpeechEngine.ComputeType
