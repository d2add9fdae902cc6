import CInflate

/// Raw deflate (zip's method 8) through zlib, fed at most the entry's compressed bytes. It ends when the stream does;
/// input used up before that, or a step that neither reads nor writes, is damage, so it always ends: each step reads
/// input (of which there is a bounded amount), writes output (bounded by the caller's check of the declared size),
/// or throws.
enum Inflater {
    static func inflate(source: ByteSource, at offset: Int, count: Int, chunkSize: Int, entry: String,
                        _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        func damaged(_ reason: String) -> ZipArchiveError { .damagedEntry(path: entry, reason: reason) }
        // zlib keeps a pointer to its stream: it lives at one address until `inflateEnd`.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard inflateInit2_(stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ZipArchiveError.unreadable(reason: "zlib could not start inflating")
        }
        defer { inflateEnd(stream) }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(1, Swift.min(chunkSize, count)), alignment: 16)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(1, chunkSize), alignment: 16)
        defer { input.deallocate(); output.deallocate() }
        var read = 0
        while true {
            if stream.pointee.avail_in == 0 {
                guard read < count else { throw damaged("its deflate stream is cut short") }
                let piece = Swift.min(input.count, count - read)
                try source.fill(UnsafeMutableRawBufferPointer(rebasing: input[0..<piece]), from: offset + read)
                read += piece
                stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_in = uInt(piece)
            }
            let available = stream.pointee.avail_in
            stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(output.count)
            let status = CInflate.inflate(stream, Z_NO_FLUSH)
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw damaged("its deflate stream is invalid")
            }
            let written = output.count - Int(stream.pointee.avail_out)
            if written > 0 { try consume(UnsafeRawBufferPointer(rebasing: output[0..<written])) }
            if status == Z_STREAM_END { return }
            guard written > 0 || stream.pointee.avail_in < available else { throw damaged("its deflate stream stalls") }
        }
    }
}
