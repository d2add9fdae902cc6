import Foundation
import Hummingbird
import MultipartKit

/// A `multipart/form-data` request body read as it arrives: text fields in memory, the `file` field streamed to a
/// temporary file, the whole body bounded by a size limit (413 past it). A text field keeps its first 64 KB, except
/// known speakers' reference clips (`known_speaker_references[]`, data URLs of a few seconds of audio): up to
/// `SpeakerRequest.maxKnownSpeakers` of them, each kept whole up to `maxReferenceBytes` (400 past either). The caller
/// removes `directory`.
package struct MultipartUpload {
    /// Text fields by name; repeated names (`timestamp_granularities[]`) keep every value in order.
    package var fields: [String: [String]] = [:]
    /// The uploaded file, if the form had a `file` field.
    package var file: URL?
    /// Its size in bytes.
    var fileSize = 0
    /// The folder holding the upload, removed (and its place among the uploads given back) by `folder.release()` or
    /// when the last copy of the upload goes.
    package let folder: Lease
    package let directory: URL

    func field(_ name: String) -> String? { fields[name]?.last }

    /// The most bytes of a text field kept (the rest is dropped).
    static let maxFieldBytes = 65_536
    /// The largest reference clip taken, as its data URL: 10 s of 48 kHz stereo 32-bit float WAV in base64 is 5 MB.
    static let maxReferenceBytes = 8 << 20

    /// The boundary of a `multipart/form-data` content type, or nil.
    static func boundary(of contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// Reads `body` into a new folder under the temporary directory, holding `place` (a place among the uploads in
    /// progress) until the folder is removed. On any error the folder is removed before throwing. The body is being
    /// read before anything can throw (a request body that is never read would keep its connection waiting).
    package static func read(_ body: RequestBody, boundary: String, maxBytes: Int, place: Lease? = nil) async throws
        -> MultipartUpload {
        var chunks = body.makeAsyncIterator()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("openspeech-upload-\(UUID().uuidString)", isDirectory: true)
        let folder = Lease {
            try? FileManager.default.removeItem(at: directory)
            place?.release()
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let state = PartState(directory: directory)
        defer { state.close() }
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in state.header(name, value) }
        parser.onBody = { buffer in state.body(&buffer) }
        parser.onPartComplete = { state.complete() }
        var headerGuard = MultipartHeaderGuard(boundary: boundary)
        var total = 0
        while let buffer = try await chunks.next() {
            total += buffer.readableBytes
            if total > maxBytes { throw APIError.tooLarge(limit: maxBytes) }
            guard headerGuard.accepts(buffer.readableBytesView) else {
                throw APIError(.badRequest, "The multipart body is malformed: a part's header name holds a byte "
                    + "outside ASCII.", code: "invalid_multipart")
            }
            do {
                try parser.execute(buffer)
            } catch {
                throw APIError(.badRequest, "The multipart body is malformed.", code: "invalid_multipart")
            }
            if let failure = state.failure { throw failure }
        }
        state.close()
        if let failure = state.failure { throw failure }
        return MultipartUpload(fields: state.fields, file: state.fileURL, fileSize: state.fileSize, folder: folder,
                               directory: directory)
    }

    /// The parser's callbacks' state: the current part's name, the file being written, the fields so far. Used by
    /// one task only (the request's), through the parser's synchronous callbacks.
    private final class PartState {
        let directory: URL
        var fields: [String: [String]] = [:]
        var fileURL: URL?
        var fileSize = 0
        var failure: (any Error)?
        private var name: String?
        private var isFile = false
        private var isReference = false
        private var references = 0
        private var text: [UInt8] = []
        private var handle: FileHandle?

        init(directory: URL) {
            self.directory = directory
        }

        func header(_ name: String, _ value: String) {
            guard name.lowercased() == "content-disposition" else { return }
            self.name = Self.parameter("name", in: value)
            let filename = Self.parameter("filename", in: value)
            isFile = self.name == "file" || (filename != nil && self.name == nil)
            isReference = !isFile && SpeakerRequest.referenceFields.contains(self.name ?? "")
            if isReference {
                references += 1
                if references > SpeakerRequest.maxKnownSpeakers && failure == nil {
                    failure = APIError(.badRequest, "At most \(SpeakerRequest.maxKnownSpeakers) known speakers are taken; "
                                       + "this request sends more known_speaker_references[].",
                                       param: "known_speaker_references", code: "invalid_value")
                }
            }
            if isFile && fileURL == nil {
                // Keep the extension as a hint; the decoder reads the container from the content.
                let ext = filename.map { ($0 as NSString).pathExtension }.flatMap { $0.isEmpty ? nil : $0 } ?? "bin"
                let safe = ext.filter { $0.isLetter || $0.isNumber }.prefix(8)
                let url = directory.appendingPathComponent("audio.\(safe.isEmpty ? "bin" : String(safe))")
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)
                handle = try? FileHandle(forWritingTo: url)
                fileURL = url
                if handle == nil { failure = APIError(.internalServerError, "Could not store the upload.", type: "server_error") }
            }
        }

        func body(_ buffer: inout ByteBuffer) {
            if isFile {
                guard let handle, let bytes = buffer.readBytes(length: buffer.readableBytes) else { return }
                fileSize += bytes.count
                do { try handle.write(contentsOf: bytes) } catch {
                    failure = APIError(.internalServerError, "Could not store the upload: \(error)", type: "server_error")
                }
            } else if isReference {
                guard failure == nil, let bytes = buffer.readBytes(length: buffer.readableBytes) else { return }
                guard text.count + bytes.count <= MultipartUpload.maxReferenceBytes else {
                    failure = APIError(.badRequest, "known_speaker_references[] \(references) is larger than "
                                       + "\(MultipartUpload.maxReferenceBytes >> 20) MB; send a clip of 2 to 10 s.",
                                       param: "known_speaker_references", code: "invalid_known_speaker_reference")
                    return
                }
                text += bytes
            } else if text.count < MultipartUpload.maxFieldBytes, let bytes = buffer.readBytes(length: buffer.readableBytes) {
                text += bytes
            }
        }

        func complete() {
            if isFile {
                close()
            } else if let name {
                fields[name, default: []].append(String(decoding: text, as: UTF8.self))
            }
            name = nil
            isFile = false
            isReference = false
            text = []
        }

        func close() {
            try? handle?.close()
            handle = nil
        }

        /// `key="value"` (or unquoted) from a Content-Disposition value.
        static func parameter(_ key: String, in value: String) -> String? {
            for part in value.split(separator: ";").dropFirst() {
                let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0].lowercased() == key {
                    return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            }
            return nil
        }
    }
}
