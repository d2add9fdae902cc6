// `import SpeechAudio` brings Foundation, as Apple's AVFoundation does: its API is in Foundation's types.
@_exported import Foundation
