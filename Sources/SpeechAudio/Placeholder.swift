import CFFmpeg
enum SpeechAudioPlaceholder {}
