import Foundation
import SpeechEngine

/// What the benchmark ran on: cores, CPU model and ISA, matrix libraries and the environment that picks their kernels.
struct MachineInfo: Codable {
    var cores: Int
    var cpuModel: String
    var blasCore: String
    var openblasCoretype: String?
    var openblasL2Size: String?

    static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }.map(String.init) ?? ""
        let features = ["avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni"].filter { flags.contains(" \($0)") }
        let environment = ProcessInfo.processInfo.environment
        return MachineInfo(
            cores: ProcessInfo.processInfo.activeProcessorCount,
            cpuModel: features.isEmpty ? model : "\(model) (\(features.joined(separator: " ")))",
            blasCore: MatrixBackend.description,
            openblasCoretype: environment["OPENBLAS_CORETYPE"], openblasL2Size: environment["OPENBLAS_L2_SIZE"])
    }

    var summary: String {
        "machine: \(cores) cores, \(cpuModel); matrix libraries: \(blasCore) "
            + "(OPENBLAS_CORETYPE=\(openblasCoretype ?? "unset"), OPENBLAS_L2_SIZE=\(openblasL2Size ?? "unset"))"
    }
}
