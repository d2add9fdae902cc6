import ArchiveReading
import Foundation
import Testing
import TestSupport
import ZIPFoundation

/// The zip reader wheels and PyTorch checkpoints are read with: archives another writer made read back byte for
/// byte, and every damaged length is a typed error at once, never a loop (ZIPFoundation's reader, used before, spun
/// forever on a deflate stream cut short: `scripts/fuzz`'s wheel target timed out on one in CI).
// Each test has a time limit, so a reader that loops fails rather than hangs the run: a minute for the archives built
// in memory; ten for the one Python writes, a subprocess that the saturated CI run (every suite at once on two
// cores) once starved past a minute.
@Suite struct ZipArchiveTests {
    /// A zip built field by field, so each field can be wrong on purpose.
    struct Member {
        var name: String
        var method: UInt16 = 0
        var data: [UInt8]
        var crc: UInt32
        var compressedSize: UInt32? = nil
        var uncompressedSize: UInt32
        var extra: [UInt8] = []
    }

    static func crc(_ bytes: [UInt8]) -> UInt32 { Data(bytes).crc32(checksum: 0) }

    static func archive(_ members: [Member]) -> Data {
        var out: [UInt8] = [], directory: [UInt8] = []
        func le16(_ v: UInt16, _ to: inout [UInt8]) { to += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: UInt32, _ to: inout [UInt8]) { le16(UInt16(v & 0xFFFF), &to); le16(UInt16(v >> 16), &to) }
        for member in members {
            let offset = UInt32(out.count), name = Array(member.name.utf8)
            let compressed = member.compressedSize ?? UInt32(member.data.count)
            le32(0x0403_4b50, &out); le16(20, &out); le16(0, &out); le16(member.method, &out); le32(0, &out)
            le32(member.crc, &out); le32(compressed, &out); le32(member.uncompressedSize, &out)
            le16(UInt16(name.count), &out); le16(0, &out)
            out += name + member.data
            le32(0x0201_4b50, &directory); le16(20, &directory); le16(20, &directory); le16(0, &directory)
            le16(member.method, &directory); le32(0, &directory); le32(member.crc, &directory)
            le32(compressed, &directory); le32(member.uncompressedSize, &directory)
            le16(UInt16(name.count), &directory); le16(UInt16(member.extra.count), &directory); le16(0, &directory)
            le16(0, &directory); le16(0, &directory); le32(0, &directory); le32(offset, &directory)
            directory += name + member.extra
        }
        let directoryOffset = UInt32(out.count)
        out += directory
        le32(0x0605_4b50, &out); le16(0, &out); le16(0, &out); le16(UInt16(members.count), &out)
        le16(UInt16(members.count), &out); le32(UInt32(directory.count), &out); le32(directoryOffset, &out); le16(0, &out)
        return Data(out)
    }

    static func read(_ data: Data, _ path: String, chunkSize: Int = 1 << 20) throws -> [UInt8] {
        let archive = try ZipArchive(data: data)
        let entry = try #require(archive[path])
        var bytes: [UInt8] = []
        try archive.read(entry, chunkSize: chunkSize) { bytes += $0 }
        return bytes
    }

    static func damage(_ body: () throws -> Any) -> ZipArchiveError? {
        do { _ = try body(); return nil } catch { return error as? ZipArchiveError }
    }

    @Test("stored and deflated entries ZIPFoundation wrote read back byte for byte, in small and large pieces, from a file and from memory",
          .timeLimit(.minutes(1)))
    func readsAnotherWritersArchive() throws {
        let text = Array((0..<40_000).map { "word \($0 % 977) " }.joined().utf8)
        let binary = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try Archive(url: url, accessMode: .create)
        for (name, bytes, method) in [("text.txt", text, CompressionMethod.deflate), ("dir/binary.bin", binary, .none),
                                      ("empty", [], .deflate)] {
            try writer.addEntry(with: name, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: method) {
                position, size in Data(bytes[Int(position)..<(Int(position) + size)])
            }
        }
        let fromFile = try ZipArchive(url: url)
        #expect(fromFile.entries.map(\.path) == ["text.txt", "dir/binary.bin", "empty"])
        #expect(fromFile["text.txt"]!.compressedSize < text.count / 4)
        for chunk in [1 << 20, 1000] {
            var bytes: [UInt8] = []
            try fromFile.read(fromFile["text.txt"]!, chunkSize: chunk) { bytes += $0 }
            #expect(bytes == text)
        }
        let data = try Data(contentsOf: url)
        #expect(try Self.read(data, "dir/binary.bin", chunkSize: 4096) == binary)
        #expect(try Self.read(data, "empty") == [])
    }

    @Test("Python's zipfile: 65,537 entries (a ZIP64 end record) and an entry with a ZIP64 local header read back",
          .timeLimit(.minutes(10)))
    func readsZIP64() async throws {
        let folder = try makeTemporaryDirectory("openspeech-zip64")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("many.zip")
        try await runCommand("python3", ["-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                for i in range(65536):
                    z.writestr(f"e/{i}", b"")
                last = zipfile.ZipInfo("last.txt")
                last.compress_type = zipfile.ZIP_DEFLATED
                with z.open(last, "w", force_zip64=True) as f:
                    f.write(b"the last entry " * 1000)
            """, url.path])
        let archive = try ZipArchive(url: url)
        #expect(archive.entries.count == 65_537)
        let last = try #require(archive["last.txt"])
        #expect(try archive.contents(of: last, limit: 1 << 20) == Array(String(repeating: "the last entry ", count: 1000).utf8))
        #expect(try archive.contents(of: try #require(archive["e/65535"]), limit: 1) == [])
    }

    // Deflate streams written by hand: a stored block is 1 byte of header (BFINAL, type 00), LEN, ~LEN, the bytes.
    static let hello = Array("hello".utf8)
    static let finalBlock: [UInt8] = [0x01, 0x05, 0x00, 0xFA, 0xFF] + hello

    @Test("a deflated entry reads; its stream cut short, or claiming more than the entry holds, is a typed error at once",
          .timeLimit(.minutes(1)))
    func deflateStreamsEndWithTheirEntry() throws {
        let good = Member(name: "a", method: 8, data: Self.finalBlock, crc: Self.crc(Self.hello), uncompressedSize: 5)
        #expect(try Self.read(Self.archive([good]), "a") == Self.hello)

        var notFinal = good
        notFinal.data[0] = 0x00  // the block is not the last: the stream goes on past the entry
        #expect(Self.damage { try Self.read(Self.archive([notFinal]), "a") }
                == .damagedEntry(path: "a", reason: "its deflate stream is cut short"))

        // A block of 65,535 bytes in an entry of 10, followed by another member and the directory it could swallow.
        var swallowing = good
        swallowing.data = [0x01, 0xFF, 0xFF, 0x00, 0x00] + Self.hello
        let other = Member(name: "b", data: Array(repeating: 7, count: 3000), crc: Self.crc(Array(repeating: 7, count: 3000)),
                           uncompressedSize: 3000)
        #expect(Self.damage { try Self.read(Self.archive([swallowing, other]), "a") }
                == .damagedEntry(path: "a", reason: "its deflate stream is cut short"))

        var invalid = good
        invalid.data[0] = 0x07  // block type 11: reserved
        #expect(Self.damage { try Self.read(Self.archive([invalid]), "a") }
                == .damagedEntry(path: "a", reason: "its deflate stream is invalid"))
    }

    @Test("an entry longer or shorter than it declares, or with a wrong CRC-32, is damaged",
          .timeLimit(.minutes(1)))
    func sizesAndChecksumsAreChecked() throws {
        var longer = Member(name: "a", method: 8, data: Self.finalBlock, crc: Self.crc(Self.hello), uncompressedSize: 3)
        #expect(Self.damage { try Self.read(Self.archive([longer]), "a") }
                == .damagedEntry(path: "a", reason: "it is longer than it declares"))
        longer.uncompressedSize = 9
        #expect(Self.damage { try Self.read(Self.archive([longer]), "a") }
                == .damagedEntry(path: "a", reason: "it holds 5 bytes, not the 9 it declares"))
        let wrongSum = Member(name: "a", data: Self.hello, crc: Self.crc(Self.hello) ^ 1, uncompressedSize: 5)
        #expect(Self.damage { try Self.read(Self.archive([wrongSum]), "a") }
                == .damagedEntry(path: "a", reason: "its CRC-32 does not match"))
        let storedMismatch = Member(name: "a", data: Self.hello, crc: Self.crc(Self.hello), compressedSize: 5, uncompressedSize: 4)
        #expect(Self.damage { try Self.read(Self.archive([storedMismatch]), "a") }
                == .damagedEntry(path: "a", reason: "stored, yet its two sizes differ"))
    }

    @Test("sizes and offsets past the archive, ZIP64 ones too, are refused before anything is read",
          .timeLimit(.minutes(1)))
    func lengthsPastTheArchive() throws {
        // 4 GiB stored in an archive of a hundred bytes (ZIPFoundation read it in 4,096 empty steps).
        let huge = Member(name: "a", data: Self.hello, crc: 0, compressedSize: 0xFFFF_FFF0, uncompressedSize: 0xFFFF_FFF0)
        #expect(Self.damage { try ZipArchive(data: Self.archive([huge])) }
                == .notAnArchive(reason: "its central directory places a outside the archive"))
        // A ZIP64 extra field giving 2^62 bytes (ZIPFoundation: 2^42 steps).
        var zip64 = Member(name: "a", data: Self.hello, crc: 0, compressedSize: 0xFFFF_FFFF, uncompressedSize: 0xFFFF_FFFF)
        zip64.extra = [0x01, 0x00, 16, 0x00] + [0, 0, 0, 0, 0, 0, 0, 0x40] + [0, 0, 0, 0, 0, 0, 0, 0x40]
        #expect(Self.damage { try ZipArchive(data: Self.archive([zip64])) }
                == .notAnArchive(reason: "its central directory places a outside the archive"))
        // A stored entry whose data would run past the end (its declared size fits the archive, not from its offset).
        let pastEnd = Member(name: "a", data: Self.hello, crc: 0, compressedSize: 80, uncompressedSize: 80)
        #expect(Self.damage { try Self.read(Self.archive([pastEnd]), "a") }
                == .damagedEntry(path: "a", reason: "its data runs past the end of the archive"))
        // Not an archive at all, and an end record whose directory lies past it.
        #expect(Self.damage { try ZipArchive(data: Data(repeating: 0x50, count: 4000)) }
                == .notAnArchive(reason: "it has no end record"))
        var moved = [UInt8](Self.archive([Member(name: "a", data: Self.hello, crc: Self.crc(Self.hello), uncompressedSize: 5)]))
        moved[moved.count - 6] = 0xF0
        #expect(Self.damage { try ZipArchive(data: Data(moved)) }
                == .notAnArchive(reason: "its central directory lies outside it"))
    }
}
