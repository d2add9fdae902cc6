// Placeholder: the assets layer (issue 3) lands here.
enum SpeechAssetsPlaceholder {}
