import Testing
import TestSupport

/// The English and basic normalizers: each case lists texts that must normalize identically, or a
/// text and its expected normal form.
@Suite struct NormalizerTests {
    let english = EnglishTextNormalizer()

    @Test(arguments: [
        ("Hello, World!", "hello world"),
        ("  Several   spaces\tand\nlines ", "several spaces and lines"),
        ("[MUSIC] So (laughs) it begins <unk>.", "so it begins"),
        ("Uh, well, um, I think hmm so.", "well i think so"),
        ("Café naïve façade Œuvre", "cafe naive facade oeuvre"),
        ("don't can't won't I'm we're they've she'll he'd", "do not can not will not i am we are they have she will he would"),
        ("It's the world's best, isn't it? 'Quoted' text", "it is the worlds best is not it quoted text"),
        ("Mr. Smith met Dr. Jones and Mrs. Lee", "mr smith met dr jones and mrs lee"),
        ("MISTER QUILTER", "mr quilter"),
        ("the colour of honour, dishonoured, realised, centre, travelled", "the color of honor dishonored realized center traveled"),
        ("I'm gonna wanna", "i am going to want to"),
        ("e-mail rock-and-roll cold-hearted", "email rock and roll cold hearted"),
        ("Okay, alright.", "ok all right"),
        ("for ever and ever, to day and to night", "forever and ever today and tonight"),
        ("Tom & Jerry", "tom and jerry"),
    ])
    func english(_ input: String, _ expected: String) {
        #expect(english.normalize(input) == expected)
    }

    @Test(arguments: [
        ("one two three", "1 2 3"),
        ("twenty five", "25"),
        ("one hundred and five", "105"),
        ("a hundred people", "100 people"),
        ("two hundred and fifty seven million euro", "€257000000"),
        ("€257 million", "€257000000"),
        ("two point five million", "2500000"),
        ("2.5 million", "2500000"),
        ("forty seven percent", "47%"),
        ("47 %", "47%"),
        ("forty seven per cent", "47%"),
        ("ten dollars", "$10"),
        ("$10", "$10"),
        ("three point one four", "3.14"),
        ("fourteen fifty-five", "1455"),
        ("1455,", "1455"),
        ("nineteen oh five", "1905"),
        ("twenty twenty one", "2021"),
        ("two thousand and twenty one", "2021"),
        ("nineteen hundred", "1900"),
        ("the fifteenth century", "the 15th century"),
        ("twenty first", "21st"),
        ("the second time", "the 2nd time"),
        ("one hundred and twelfth", "112th"),
        ("1,000,000 votes", "1000000 votes"),
        ("forty-two line Bible", "42 line bible"),
        ("slide seventeen", "slide 17"),
        ("thousands of people", "thousands of people"),
        ("zero", "0"),
        ("point of view", "point of view"),
        ("q4", "q4"),
    ])
    func numbers(_ input: String, _ expected: String) {
        #expect(english.normalize(input) == expected)
    }

    @Test(arguments: [
        ("the earliest book printed with movable types, the Gutenberg, or \"forty-two line Bible\" of about 1455,",
         "The earliest book printed with movable types, the Gutenberg, or forty two line Bible of about fourteen fifty five."),
        ("Mr quilter is the apostle of the middle classes and we are glad to welcome his gospel",
         "MISTER QUILTER IS THE APOSTLE OF THE MIDDLE CLASSES AND WE ARE GLAD TO WELCOME HIS GOSPEL"),
        ("go forward ten meters", "Go forward 10 meters."),
        ("Today only platforms one and three are used.", "Today, only platforms 1 and 3 are used."),
        ("we came out at the high end with two hundred and fifty seven million euro adjusted ebitda",
         "We came out at the high end with €257 million adjusted EBITDA."),
        ("uh recently we started working with abb", "Recently, we started working with ABB."),
        ("GOD AS A DIRECT CONSEQUENCE OF THE SIN WHICH MAN THUS PUNISHED HAD GIVEN HER A LOVELY CHILD WHOSE PLACE WAS ON THAT SAME DISHONOURED BOSOM",
         "God, as a direct consequence of the sin which man thus punished, had given her a lovely child, whose place was on that same dishonored bosom."),
    ])
    func referenceAndTranscriptAgree(_ reference: String, _ transcript: String) {
        #expect(english.normalize(reference) == english.normalize(transcript))
    }

    @Test func basicNormalizer() {
        let basic = BasicTextNormalizer()
        #expect(basic.normalize("¿Dónde está la biblioteca?") == "dónde está la biblioteca")
        #expect(basic.normalize("Ça va, l'homme — très bien!") == "ça va l homme très bien")
        #expect(basic.normalize("ＦＵＬＬ width") == "full width")
        #expect(basic.normalize("你好，世界。") == "你好 世界")
        #expect(basic.normalize("[music] Привет, мир!") == "привет мир")
        #expect(basic.normalize("한국어 문장입니다.") == "한국어 문장입니다")
    }

    @Test func languageChoosesNormalizer() {
        #expect(TextNormalizer.forLanguage("en") is EnglishTextNormalizer)
        #expect(TextNormalizer.forLanguage("de") is BasicTextNormalizer)
    }

    @Test func corpusTranscriptsNormalizeToWords() {
        for item in Corpus.items {
            let normalized = TextNormalizer.forLanguage(item.language).normalize(item.transcript)
            #expect(!normalized.isEmpty, "\(item.id)")
            #expect(!normalized.contains { $0.isPunctuation || $0.isUppercase }, "\(item.id): \(normalized)")
        }
    }
}
