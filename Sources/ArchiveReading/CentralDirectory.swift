/// Finds and reads a zip archive's central directory: the end record (the last one within the 64 KiB comment's reach
/// of the end), its ZIP64 counterpart when a count, size or offset overflows, then each entry with its ZIP64 extra
/// field. Every count, size and offset is checked against the archive's size before it is used.
enum CentralDirectory {
    static let endSignature: UInt32 = 0x0605_4b50, entrySignature: UInt32 = 0x0201_4b50
    static let zip64EndSignature: UInt32 = 0x0606_4b50, zip64LocatorSignature: UInt32 = 0x0706_4b50
    static let endSize = 22, entrySize = 46, zip64LocatorSize = 20, zip64EndSize = 56

    static func entries(of source: ByteSource) throws -> [ZipArchive.Entry] {
        func notAnArchive(_ reason: String) -> ZipArchiveError { .notAnArchive(reason: reason) }
        guard source.size >= endSize else { throw notAnArchive("it is shorter than a zip's end record") }
        let tailStart = Swift.max(0, source.size - endSize - 0xFFFF)
        let tail = try source.bytes(at: tailStart, count: source.size - tailStart)
        guard let end = stride(from: tail.count - endSize, through: 0, by: -1).first(where: {
            tail.uint32(at: $0) == endSignature && $0 + endSize + Int(tail.uint16(at: $0 + 20)) <= tail.count
        }) else { throw notAnArchive("it has no end record") }
        let endOffset = tailStart + end
        guard tail.uint16(at: end + 4) == 0, tail.uint16(at: end + 6) == 0 else {
            throw notAnArchive("it spans several disks")
        }
        var count = UInt64(tail.uint16(at: end + 10))
        var directorySize = UInt64(tail.uint32(at: end + 12)), directoryOffset = UInt64(tail.uint32(at: end + 16))
        var directoryEnd = endOffset
        // An overflowed field means a ZIP64 end record, found through the locator just before the end record (an
        // archive of exactly 65,535 entries may have none, and keeps its counts).
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF,
           endOffset >= zip64LocatorSize + zip64EndSize {
            let locator = try source.bytes(at: endOffset - zip64LocatorSize, count: zip64LocatorSize)
            if locator.uint32(at: 0) == zip64LocatorSignature {
                let recordOffset = locator.uint64(at: 8)
                guard recordOffset <= UInt64(endOffset - zip64LocatorSize - zip64EndSize) else {
                    throw notAnArchive("its ZIP64 end record is out of place")
                }
                let record = try source.bytes(at: Int(recordOffset), count: zip64EndSize)
                guard record.uint32(at: 0) == zip64EndSignature else { throw notAnArchive("its ZIP64 end record is missing") }
                count = record.uint64(at: 32)
                directorySize = record.uint64(at: 40)
                directoryOffset = record.uint64(at: 48)
                directoryEnd = Int(recordOffset)
            }
        }
        guard directoryOffset <= UInt64(directoryEnd), directorySize <= UInt64(directoryEnd) - directoryOffset else {
            throw notAnArchive("its central directory lies outside it")
        }
        guard count <= directorySize / UInt64(entrySize) else {
            throw notAnArchive("its central directory is too small for \(count) entries")
        }
        let directory = try source.bytes(at: Int(directoryOffset), count: Int(directorySize))
        var entries: [ZipArchive.Entry] = []
        entries.reserveCapacity(Int(count))
        var offset = 0
        for _ in 0..<Int(count) {
            let (entry, next) = try Self.entry(in: directory, at: offset, archiveSize: source.size)
            entries.append(entry)
            offset = next
        }
        return entries
    }

    /// The entry whose record starts at `offset` of `directory`, and the offset of the next record.
    private static func entry(in directory: [UInt8], at offset: Int, archiveSize: Int) throws -> (ZipArchive.Entry, Int) {
        func damaged(_ reason: String) -> ZipArchiveError { .notAnArchive(reason: "its central directory \(reason)") }
        guard directory.count - offset >= entrySize, directory.uint32(at: offset) == entrySignature else {
            throw damaged("ends before its last entry")
        }
        let nameLength = Int(directory.uint16(at: offset + 28)), extraLength = Int(directory.uint16(at: offset + 30))
        let commentLength = Int(directory.uint16(at: offset + 32))
        let next = offset + entrySize + nameLength + extraLength + commentLength
        guard next <= directory.count else { throw damaged("has an entry running past its end") }
        let name = String(decoding: directory[(offset + entrySize)..<(offset + entrySize + nameLength)], as: UTF8.self)
        var uncompressed = UInt64(directory.uint32(at: offset + 24)), compressed = UInt64(directory.uint32(at: offset + 20))
        var localHeader = UInt64(directory.uint32(at: offset + 42))
        // The ZIP64 extra field holds, in this order, each of the three that overflowed its 32 bits.
        var extra = offset + entrySize + nameLength
        let extraEnd = extra + extraLength
        while extraEnd - extra >= 4 {
            let id = directory.uint16(at: extra), length = Int(directory.uint16(at: extra + 2))
            guard length <= extraEnd - extra - 4 else { throw damaged("has an extra field running past \(name)") }
            if id == 0x0001 {
                var field = extra + 4
                let fieldEnd = field + length
                func next64(_ value: inout UInt64) throws {
                    guard value == 0xFFFF_FFFF else { return }
                    guard fieldEnd - field >= 8 else { throw damaged("has a short ZIP64 field in \(name)") }
                    value = directory.uint64(at: field)
                    field += 8
                }
                try next64(&uncompressed)
                try next64(&compressed)
                try next64(&localHeader)
            }
            extra += 4 + length
        }
        let size = UInt64(archiveSize)
        guard compressed <= size, localHeader < size else { throw damaged("places \(name) outside the archive") }
        // A deflate stream expands at most 1032-fold; no stored entry is longer than the archive.
        guard uncompressed <= Swift.max(compressed, 1) * 1032 else {
            throw damaged("declares \(uncompressed) bytes for \(name), more than its data can hold")
        }
        let flags = directory.uint16(at: offset + 8)
        let entry = ZipArchive.Entry(path: name, method: directory.uint16(at: offset + 10),
                                     crc32: directory.uint32(at: offset + 16), compressedSize: Int(compressed),
                                     uncompressedSize: Int(uncompressed), localHeaderOffset: Int(localHeader),
                                     isEncrypted: flags & 1 != 0)
        return (entry, next)
    }
}
