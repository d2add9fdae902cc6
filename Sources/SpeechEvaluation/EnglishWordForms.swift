/// Whole-word rewrites of the English normalizer besides spelling: titles to their abbreviations,
/// informal forms to standard ones, and the filler words dropped before scoring.
enum EnglishWordForms {
    /// Spoken fillers and hesitations, removed.
    static let fillers: Set<String> = ["uh", "um", "umm", "uhm", "hmm", "hm", "mm", "mmm", "mhm", "erm"]

    /// Titles and informal forms: the spoken word → what it is written as after normalization.
    static let rewrites: [String: [String]] = [
        "mister": ["mr"], "missus": ["mrs"], "missis": ["mrs"], "doctor": ["dr"], "professor": ["prof"],
        "junior": ["jr"], "senior": ["sr"], "saint": ["st"], "mistress": ["mrs"],
        "gonna": ["going", "to"], "wanna": ["want", "to"], "gotta": ["got", "to"], "gimme": ["give", "me"],
        "lemme": ["let", "me"], "kinda": ["kind", "of"], "sorta": ["sort", "of"], "outta": ["out", "of"],
        "dunno": ["do", "not", "know"], "y'all": ["you", "all"], "yall": ["you", "all"], "ma'am": ["madam"],
        "'em": ["them"], "till": ["until"], "til": ["until"], "'til": ["until"], "'cause": ["because"],
        "cuz": ["because"], "alright": ["all", "right"],
    ]

    /// Old spellings in two words that are written as one today ("to day" in LibriSpeech's books).
    static let joinedPairs: [String: [String: String]] = [
        "to": ["day": "today", "night": "tonight", "morrow": "tomorrow"],
        "for": ["ever": "forever"],
    ]

    /// Contractions written out, applied to words still holding their apostrophe.
    static let contractions: [String: [String]] = [
        "won't": ["will", "not"], "can't": ["can", "not"], "cannot": ["can", "not"], "shan't": ["shall", "not"],
        "ain't": ["is", "not"], "let's": ["let", "us"], "i'm": ["i", "am"], "it's": ["it", "is"],
        "that's": ["that", "is"], "there's": ["there", "is"], "here's": ["here", "is"], "what's": ["what", "is"],
        "where's": ["where", "is"], "who's": ["who", "is"], "how's": ["how", "is"], "he's": ["he", "is"],
        "she's": ["she", "is"],
    ]

    /// Suffix contractions: `n't` → not, `'re` → are...; the rest of the word keeps its spelling.
    static let contractionSuffixes: [(String, String)] = [
        ("n't", "not"), ("'re", "are"), ("'ve", "have"), ("'ll", "will"), ("'d", "would"), ("'m", "am"),
    ]
}
