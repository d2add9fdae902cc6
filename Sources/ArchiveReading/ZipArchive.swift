import CInflate
import Foundation

/// A zip archive read for its entries' bytes (wheels, PyTorch checkpoints), with every length checked against the
/// archive before it is used: an entry's data never reaches past the archive, inflating stops at the entry's
/// compressed size, produces at most its declared size and must end there with its CRC-32. Stored and deflated
/// entries, ZIP64 archives; not encrypted or multi-disk ones.
///
/// Written here rather than taken from ZIPFoundation, which the engine used before: its reader inflates from the
/// file until the deflate stream ends, so an entry whose stream is cut short (or that swallows the rest of the
/// file) spins forever at the end of the file (found by `scripts/fuzz`'s wheel target), and a ZIP64 size is read in
/// 1 MiB steps however far it points past the end.
package struct ZipArchive {
    /// An entry of the central directory.
    package struct Entry: Sendable {
        package let path: String
        /// 0 stored, 8 deflated.
        package let method: UInt16
        package let crc32: UInt32
        package let compressedSize: Int
        package let uncompressedSize: Int
        let localHeaderOffset: Int
        let isEncrypted: Bool
    }

    /// The central directory's entries, in its order.
    package let entries: [Entry]
    private let source: ByteSource

    /// Opens the archive at `url`; throws `ZipArchiveError` when it is not one, or its directory is damaged.
    package init(url: URL) throws {
        try self.init(source: try ByteSource(url: url))
    }

    /// Reads an archive held in memory.
    package init(data: Data) throws {
        try self.init(source: ByteSource(data: data))
    }

    private init(source: ByteSource) throws {
        self.source = source
        entries = try CentralDirectory.entries(of: source)
    }

    /// The first entry named `path`.
    package subscript(path: String) -> Entry? { entries.first { $0.path == path } }

    /// Hands `entry`'s bytes to `consume` in pieces of at most `chunkSize`; throws `ZipArchiveError` when its data
    /// is damaged (past the archive, cut short, longer or shorter than declared, a wrong CRC-32), whatever
    /// `consume` throws otherwise.
    package func read(_ entry: Entry, chunkSize: Int = 1 << 20,
                      _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        func damaged(_ reason: String) -> ZipArchiveError { .damagedEntry(path: entry.path, reason: reason) }
        guard !entry.isEncrypted else { throw ZipArchiveError.unsupportedEntry(path: entry.path, reason: "it is encrypted") }
        let header = try source.bytes(at: entry.localHeaderOffset, count: 30)
        guard header.count == 30, header.uint32(at: 0) == 0x0403_4b50 else { throw damaged("its local header is missing") }
        let dataOffset = entry.localHeaderOffset + 30 + Int(header.uint16(at: 26)) + Int(header.uint16(at: 28))
        guard dataOffset <= source.size, entry.compressedSize <= source.size - dataOffset else {
            throw damaged("its data runs past the end of the archive")
        }
        var checksum: UInt = 0
        var produced = 0
        let check: (UnsafeRawBufferPointer) throws -> Void = { bytes in
            guard bytes.count <= entry.uncompressedSize - produced else { throw damaged("it is longer than it declares") }
            produced += bytes.count
            checksum = CInflate.crc32(checksum, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
            try consume(bytes)
        }
        switch entry.method {
        case 0:
            guard entry.compressedSize == entry.uncompressedSize else { throw damaged("stored, yet its two sizes differ") }
            try source.read(at: dataOffset, count: entry.compressedSize, chunkSize: chunkSize, check)
        case 8 where entry.compressedSize == 0:
            break  // an empty file some writers leave without a stream
        case 8:
            try Inflater.inflate(source: source, at: dataOffset, count: entry.compressedSize, chunkSize: chunkSize,
                                 entry: entry.path, check)
        default:
            throw ZipArchiveError.unsupportedEntry(
                path: entry.path, reason: "it is compressed with method \(entry.method) (stored and deflate are read)")
        }
        guard produced == entry.uncompressedSize else {
            throw damaged("it holds \(produced) bytes, not the \(entry.uncompressedSize) it declares")
        }
        guard UInt32(truncatingIfNeeded: checksum) == entry.crc32 else { throw damaged("its CRC-32 does not match") }
    }

    /// `entry`'s bytes, refused when it declares more than `limit`.
    package func contents(of entry: Entry, limit: Int) throws -> [UInt8] {
        guard entry.uncompressedSize <= limit else {
            throw ZipArchiveError.damagedEntry(path: entry.path, reason: "it declares \(entry.uncompressedSize) bytes")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entry.uncompressedSize)
        try read(entry) { bytes.append(contentsOf: $0) }
        return bytes
    }
}

/// Why an archive or an entry could not be read.
package enum ZipArchiveError: Error, Equatable, CustomStringConvertible {
    case notAnArchive(reason: String)
    case damagedEntry(path: String, reason: String)
    case unsupportedEntry(path: String, reason: String)
    case unreadable(reason: String)

    package var description: String {
        switch self {
        case .notAnArchive(let reason): "not a zip archive: \(reason)"
        case .damagedEntry(let path, let reason): "its entry \(path) is damaged: \(reason)"
        case .unsupportedEntry(let path, let reason): "its entry \(path) cannot be read: \(reason)"
        case .unreadable(let reason): "it cannot be read: \(reason)"
        }
    }
}

extension [UInt8] {
    func uint16(at offset: Int) -> UInt16 { UInt16(self[offset]) | UInt16(self[offset + 1]) << 8 }
    func uint32(at offset: Int) -> UInt32 { UInt32(uint16(at: offset)) | UInt32(uint16(at: offset + 2)) << 16 }
    func uint64(at offset: Int) -> UInt64 { UInt64(uint32(at: offset)) | UInt64(uint32(at: offset + 4)) << 32 }
}
