import Foundation

/// A `data:` URL carrying bytes in base64 (`data:audio/wav;base64,UklGR...`), as OpenAI takes known speakers'
/// reference clips. Only the base64 form: audio percent-encoded in a URL is not something clients send.
struct DataURL: Equatable {
    /// The media type given (`audio/wav`), lower-cased; empty when the URL names none.
    let mediaType: String
    let data: Data

    /// Why a string is not a usable data URL, as the end of a sentence naming the field.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case notADataURL
        case notBase64
        case invalidBase64
        case empty

        var description: String {
            switch self {
            case .notADataURL: "is not a data URL: send the clip as `data:audio/wav;base64,` followed by its bytes in base64"
            case .notBase64: "is not base64-encoded: the data URL must say `;base64,` before the clip's bytes"
            case .invalidBase64: "does not hold valid base64 after `;base64,`"
            case .empty: "holds no bytes"
            }
        }
    }

    /// Reads `text`; white space inside the base64 (line breaks) is ignored.
    init(_ text: String) throws(Failure) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count > 5, text.prefix(5).lowercased() == "data:", let comma = text.firstIndex(of: ",") else {
            throw .notADataURL
        }
        let header = text[text.index(text.startIndex, offsetBy: 5)..<comma].split(separator: ";").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard header.last == "base64" else { throw .notBase64 }
        let payload = text[text.index(after: comma)...].filter { !$0.isWhitespace }
        guard !payload.isEmpty else { throw .empty }
        guard let data = Data(base64Encoded: String(payload)) else { throw .invalidBase64 }
        guard !data.isEmpty else { throw .empty }
        mediaType = header.count > 1 && header[0].contains("/") ? header[0] : ""
        self.data = data
    }

    /// A file extension for the media type, a hint for the decoder (which reads the container from the bytes).
    var fileExtension: String {
        switch mediaType {
        case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave": "wav"
        case "audio/mpeg", "audio/mp3": "mp3"
        case "audio/ogg", "audio/opus": "ogg"
        case "audio/webm", "video/webm": "webm"
        case "audio/flac", "audio/x-flac": "flac"
        case "audio/mp4", "audio/m4a", "audio/x-m4a", "video/mp4": "m4a"
        default: "bin"
        }
    }
}
