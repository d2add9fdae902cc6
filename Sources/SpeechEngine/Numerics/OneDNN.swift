#if canImport(CDNNL)
import CDNNL
import Foundation

/// The process's oneDNN CPU engine and the few calls around it the engine's products need.
enum OneDNN {
    /// The CPU engine, created once. `nonisolated(unsafe)`: oneDNN engines are immutable after creation and may be
    /// used from any thread; the pointer is written once here and never again.
    nonisolated(unsafe) static let engine: dnnl_engine_t = {
        var engine: dnnl_engine_t?
        check(dnnl_engine_create(&engine, dnnl_cpu, 0), "creating the CPU engine")
        return engine!
    }()

    /// Stops on a failed oneDNN call: every call here has arguments the engine built itself, so a failure is a bug
    /// (or memory exhaustion), not bad input.
    static func check(_ status: dnnl_status_t, _ what: @autoclosure () -> String) {
        precondition(status == dnnl_success, "oneDNN failed \(what()): status \(status.rawValue)")
    }

    static var versionString: String {
        guard let v = dnnl_version()?.pointee else { return "?" }
        return "\(v.major).\(v.minor).\(v.patch)"
    }

    /// The instruction set oneDNN's kernels use here (`ONEDNN_MAX_CPU_ISA` limits it).
    static var isaName: String {
        switch dnnl_get_effective_cpu_isa() {
        case dnnl_cpu_isa_avx512_core_amx: "AVX-512 + AMX"
        case dnnl_cpu_isa_avx512_core_bf16: "AVX-512 BF16"
        case dnnl_cpu_isa_avx512_core_vnni: "AVX-512 VNNI"
        case dnnl_cpu_isa_avx512_core: "AVX-512"
        case dnnl_cpu_isa_avx2_vnni: "AVX2 VNNI"
        case dnnl_cpu_isa_avx2: "AVX2"
        case dnnl_cpu_isa_avx: "AVX"
        case dnnl_cpu_isa_sse41: "SSE4.1"
        case let other: "ISA \(other.rawValue)"
        }
    }

    /// `omp_set_num_threads` of the OpenMP runtime oneDNN links (looked up at run time: Debian ships libgomp
    /// without a development link, and the engine needs only this call).
    private typealias SetThreads = @convention(c) (Int32) -> Void
    private static let setThreads: SetThreads? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "omp_set_num_threads") else { return nil }
        return unsafeBitCast(symbol, to: SetThreads.self)
    }()

    /// Makes oneDNN primitives created or run on the calling thread use that thread alone. OpenMP's thread count
    /// is a per-thread setting, so this runs before each creation and execution: the engine splits large products
    /// itself (`Parallel`), and small ones through OpenMP's two threads ran 10× slower than on one (oneDNN 2.6,
    /// measured from C on a 2-vCPU EPYC).
    @inline(__always) static func useCallerThreadOnly() { setThreads?(1) }

    /// The name of the implementation oneDNN chose for `pd` (what `ONEDNN_VERBOSE` would print), "?" if unknown.
    static func implementationName(_ pd: dnnl_primitive_desc_t?) -> String {
        var info: UnsafePointer<CChar>?
        guard dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &info) == dnnl_success else { return "?" }
        return info.map { String(cString: $0) } ?? "?"
    }

    /// A 2-D memory descriptor of `rows × columns` elements `rowStride` elements apart (`columnStride` between
    /// columns), or `format_tag_any` with `any`.
    static func matrix(_ rows: Int, _ columns: Int, _ type: dnnl_data_type_t,
                       rowStride: Int? = nil, columnStride: Int = 1) -> dnnl_memory_desc_t {
        var md = dnnl_memory_desc_t()
        let dims: [Int64] = [Int64(rows), Int64(columns)]
        let strides: [Int64] = [Int64(rowStride ?? columns), Int64(columnStride)]
        check(dnnl_memory_desc_init_by_strides(&md, 2, dims, type, strides), "describing a \(rows)×\(columns) matrix")
        return md
    }

    static func anyMatrix(_ rows: Int, _ columns: Int, _ type: dnnl_data_type_t) -> dnnl_memory_desc_t {
        var md = dnnl_memory_desc_t()
        let dims: [Int64] = [Int64(rows), Int64(columns)]
        check(dnnl_memory_desc_init_by_tag(&md, 2, dims, type, dnnl_format_tag_any), "describing a \(rows)×\(columns) matrix")
        return md
    }

    /// A memory object over `handle` (nil: none yet; set it with `dnnl_memory_set_data_handle`).
    static func memory(_ md: dnnl_memory_desc_t, _ handle: UnsafeMutableRawPointer?) -> dnnl_memory_t {
        var md = md
        var memory: dnnl_memory_t?
        check(dnnl_memory_create(&memory, &md, engine, handle ?? UnsafeMutableRawPointer(bitPattern: 0)), "creating a memory object")
        return memory!
    }

    /// Copies `source` (described by `from`) into `target` in the layout `to` (weights into a kernel's blocked layout).
    static func reorder(_ source: UnsafeRawPointer, from: dnnl_memory_desc_t, into target: UnsafeMutableRawPointer,
                        to: dnnl_memory_desc_t) {
        useCallerThreadOnly()
        var from = from, to = to
        var pd: dnnl_primitive_desc_t?
        check(dnnl_reorder_primitive_desc_create(&pd, &from, engine, &to, engine, nil), "planning a weight reorder")
        defer { dnnl_primitive_desc_destroy(pd) }
        var primitive: dnnl_primitive_t?
        check(dnnl_primitive_create(&primitive, pd), "creating a weight reorder")
        EngineWork.didUse(.primitive)
        defer { dnnl_primitive_destroy(primitive) }
        let input = memory(from, UnsafeMutableRawPointer(mutating: source)), output = memory(to, target)
        defer { dnnl_memory_destroy(input); dnnl_memory_destroy(output) }
        var stream: dnnl_stream_t?
        check(dnnl_stream_create(&stream, engine, UInt32(dnnl_stream_default_flags.rawValue)), "creating a stream")
        defer { dnnl_stream_destroy(stream) }
        let args = [dnnl_exec_arg_t(arg: openspeech_dnnl_arg_from, memory: input),
                    dnnl_exec_arg_t(arg: openspeech_dnnl_arg_to, memory: output)]
        check(dnnl_primitive_execute(primitive, stream, 2, args), "reordering weights")
        check(dnnl_stream_wait(stream), "waiting for a reorder")
    }
}
#endif
