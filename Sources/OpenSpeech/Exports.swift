// `import OpenSpeech` is all an app needs: the audio types (AVAudioFile, AVAudioPCMBuffer, CMTime ...) and
// the asset types (AssetInventory, SFSpeechError) come with it, as they do with Apple's `import Speech`.
@_exported import SpeechAssets
@_exported import SpeechAudio
