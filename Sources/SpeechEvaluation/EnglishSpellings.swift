/// British spellings mapped to American ones, generated from stem lists and their inflections, so
/// a reference saying "dishonoured" and a transcript saying "dishonored" count as the same word.
enum EnglishSpellings {
    /// Stems spelled `-our` in British English and `-or` in American English.
    private static let ourStems = [
        "ardour", "armour", "behaviour", "candour", "clamour", "colour", "demeanour", "endeavour",
        "favour", "fervour", "flavour", "harbour", "honour", "humour", "labour", "neighbour", "odour",
        "parlour", "rancour", "rigour", "rumour", "saviour", "savour", "splendour", "succour", "tumour",
        "valour", "vapour", "vigour",
    ]
    private static let ourSuffixes = ["", "s", "ed", "ing", "er", "ers", "ite", "ites", "able", "ably", "ful", "less", "hood", "ly", "ous"]
    private static let ourPrefixes = ["", "dis", "un", "mis", "well"]

    /// Verb stems written `-ise` in British English and `-ize` in American English.
    private static let iseStems = [
        "apolog", "authoris", "capitalis", "characteris", "civilis", "criticis", "emphas", "familiaris",
        "fertilis", "finalis", "generalis", "harmonis", "idealis", "jeopardis", "legalis", "memoris",
        "minimis", "maximis", "mobilis", "modernis", "monopolis", "neutralis", "normalis", "optimis",
        "organis", "patronis", "penalis", "popularis", "prioritis", "publicis", "realis", "recognis",
        "scrutinis", "socialis", "specialis", "stabilis", "standardis", "summaris", "symbolis",
        "sympathis", "synchronis", "utilis", "visualis", "agonis", "tantalis", "economis", "colonis",
    ].map { $0.hasSuffix("is") ? String($0.dropLast(2)) : $0 }
    private static let iseSuffixes = [("ise", "ize"), ("ises", "izes"), ("ised", "ized"), ("ising", "izing"),
                                      ("isation", "ization"), ("isations", "izations"), ("iser", "izer"), ("isers", "izers")]

    /// Words ending in `-re` in British English and `-er` in American English.
    private static let reStems = ["centre", "theatre", "metre", "litre", "fibre", "sombre", "spectre",
                                  "meagre", "sabre", "lustre", "calibre", "manoeuvre", "kilometre", "centimetre", "millimetre"]

    /// Verbs doubling a final `l` before a suffix in British English only.
    private static let doubledL = ["travel", "cancel", "label", "model", "fuel", "counsel", "marvel", "quarrel",
                                   "signal", "tunnel", "level", "revel", "shovel", "equal", "dial", "duel", "channel"]

    /// Single words.
    private static let singles: [String: String] = [
        "grey": "gray", "greys": "grays", "greyish": "grayish", "cheque": "check", "cheques": "checks",
        "programme": "program", "programmes": "programs", "catalogue": "catalog", "dialogue": "dialog",
        "analogue": "analog", "defence": "defense", "offence": "offense", "licence": "license", "pretence": "pretense",
        "practise": "practice", "practised": "practiced", "analyse": "analyze", "analysed": "analyzed", "analysing": "analyzing",
        "paralyse": "paralyze", "paralysed": "paralyzed", "tyre": "tire", "tyres": "tires", "plough": "plow",
        "ploughed": "plowed", "mould": "mold", "mouldy": "moldy", "smoulder": "smolder", "smouldering": "smoldering",
        "aluminium": "aluminum", "judgement": "judgment", "acknowledgement": "acknowledgment", "ageing": "aging",
        "fulfil": "fulfill", "fulfilment": "fulfillment", "enrol": "enroll", "enrolment": "enrollment",
        "skilful": "skillful", "wilful": "willful", "instalment": "installment", "jewellery": "jewelry",
        "woollen": "woolen", "storey": "story", "storeys": "stories", "kerb": "curb", "pyjamas": "pajamas",
        "sceptic": "skeptic", "sceptical": "skeptical", "gaol": "jail", "draught": "draft", "moustache": "mustache",
        "whisky": "whiskey", "mum": "mom", "arse": "ass", "towards": "toward", "afterwards": "afterward",
        "amongst": "among", "whilst": "while", "learnt": "learned", "spelt": "spelled", "dreamt": "dreamed",
        "leapt": "leaped", "burnt": "burned", "spoilt": "spoiled", "encyclopaedia": "encyclopedia",
        "paediatric": "pediatric", "anaesthetic": "anesthetic", "oestrogen": "estrogen", "foetus": "fetus",
        "manoeuvres": "maneuvers", "manoeuvred": "maneuvered", "connexion": "connection",
        "hullo": "hello", "hallo": "hello", "okay": "ok",
    ]

    /// The whole mapping: British spelling → American spelling.
    static let americanSpelling: [String: String] = {
        var map = singles
        for stem in ourStems {
            let american = String(stem.dropLast(2)) + "r"
            for prefix in ourPrefixes {
                for suffix in ourSuffixes { map[prefix + stem + suffix] = prefix + american + suffix }
            }
        }
        for stem in iseStems {
            for (british, american) in iseSuffixes { map[stem + british] = stem + american }
        }
        for word in reStems {
            let american = String(word.dropLast(2)) + "er"
            map[word] = american
            map[word + "s"] = american + "s"
            map[word + "d"] = american + "ed"
        }
        for verb in doubledL {
            let double = verb + String(verb.last!)
            for suffix in ["ed", "ing", "er", "ers", "or", "ors"] { map[double + suffix] = verb + suffix }
        }
        // Words the generated forms would get wrong.
        for keep in ["colonised", "colonising"] { map.removeValue(forKey: keep) }
        map["manoeuvre"] = "maneuver"
        return map
    }()
}
