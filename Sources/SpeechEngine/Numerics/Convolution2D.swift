#if canImport(CDNNL)
import CDNNL
#endif
import Foundation

/// A 2-D convolution over channels-last images, `[height × width × inputs]` in, `[outHeight × width × outputs]` out,
/// with a bias and optionally a ReLU: a kernel of 3 (padding 1) or 1 (no padding), strided along the height only.
/// The weights are `[outputs, kernel, kernel, inputs]`.
///
/// Through oneDNN's direct convolution where the build has oneDNN: its weights reordered once per image shape into
/// the kernel's layout, each call on the calling thread alone with its own scratchpad, so calls from several threads
/// may run at once and a call's bits are a function of its image alone. Measured against the gathered-taps product it
/// replaces (im2col and `sgemm`, 32 to 32 channels on an 80 × 148 image, one thread, oneDNN 2.6, Intel Xeon): 1.8×
/// faster on AVX2, 1.9–3× on AVX-512. Elsewhere, that product (`BLAS.linear` on the gathered taps).
///
/// `@unchecked Sendable`: the weights and bias are written in `init` only; `plans` is guarded by `lock`; a plan's
/// primitive and packed weights are read-only once made (oneDNN primitives may run concurrently), and every call
/// makes its own memory objects, stream and scratchpad.
final class Convolution2D: @unchecked Sendable {
    let outputs: Int, inputs: Int, kernel: Int
    private let weights: Tensor
    private let bias: Tensor?

    init(weights: Tensor, bias: Tensor?, kernel: Int) {
        precondition(weights.shape.count == 2 && weights.shape[1] % (kernel * kernel) == 0)
        self.weights = weights
        self.bias = bias
        self.kernel = kernel
        outputs = weights.shape[0]
        inputs = weights.shape[1] / (kernel * kernel)
    }

    /// The output's height for an input `height` tall.
    func outputHeight(_ height: Int, stride: Int) -> Int { (height - 1) / stride + 1 }

    /// The convolution of `input` (`height × width × inputs`) into `output`; `scratch` holds what a call needs.
    func apply(_ input: UnsafePointer<Float>, height: Int, width: Int, stride: Int, relu: Bool,
               into output: UnsafeMutablePointer<Float>, scratch: Buffer) {
        #if canImport(CDNNL)
        plan(Shape(height: height, width: width, stride: stride, relu: relu)).run(input, into: output, scratch: scratch)
        #else
        gatheredProduct(input, height: height, width: width, stride: stride, into: output, cols: scratch)
        if relu { for i in 0..<(outputHeight(height, stride: stride) * width * outputs) { output[i] = max(0, output[i]) } }
        #endif
    }

    /// The product over gathered taps: each output position's `kernel × kernel × inputs` inputs in a row of `cols`.
    func gatheredProduct(_ input: UnsafePointer<Float>, height: Int, width: Int, stride: Int,
                         into output: UnsafeMutablePointer<Float>, cols: Buffer) {
        let out = outputHeight(height, stride: stride)
        let positions = out * width, rowWidth = kernel * kernel * inputs
        let gathered = cols.reserve(positions * rowWidth)
        let pad = kernel / 2
        for fo in 0..<out {
            for t in 0..<width {
                var destination = gathered + (fo * width + t) * rowWidth
                for kf in 0..<kernel {
                    let fi = fo * stride + kf - pad
                    for kt in 0..<kernel {
                        let ti = t + kt - pad
                        if fi >= 0 && fi < height && ti >= 0 && ti < width {
                            destination.update(from: input + (fi * width + ti) * inputs, count: inputs)
                        } else {
                            destination.update(repeating: 0, count: inputs)
                        }
                        destination += inputs
                    }
                }
            }
        }
        BLAS.linear(gathered, rows: positions, weight: weights, bias: bias, into: output)
    }

    #if canImport(CDNNL)
    private struct Shape: Hashable {
        let height: Int, width: Int, stride: Int, relu: Bool
    }

    private let lock = NSLock()
    private var plans: [Shape: Plan] = [:]

    /// The plan for `shape`, made by the first call that needs it (the others wait: a few milliseconds, once).
    private func plan(_ shape: Shape) -> Plan {
        lock.withLock {
            if let made = plans[shape] { return made }
            let made = Plan(self, shape)
            plans[shape] = made
            return made
        }
    }

    /// The primitive for one image shape, with the weights in its layout. `@unchecked Sendable`: every stored property
    /// is written in `init` only, and `run` reads them and makes its own memory objects, stream and scratchpad.
    private final class Plan: @unchecked Sendable {
        let primitive: dnnl_primitive_t
        let source: dnnl_memory_desc_t, destination: dnnl_memory_desc_t, scratchpad: dnnl_memory_desc_t
        let scratchpadFloats: Int
        let weights: dnnl_memory_t, bias: dnnl_memory_t?
        let packedWeights: UnsafeMutableRawPointer

        init(_ convolution: Convolution2D, _ shape: Shape) {
            OneDNN.useCallerThreadOnly()
            let k = Int64(convolution.kernel), o = Int64(convolution.outputs), i = Int64(convolution.inputs)
            let outHeight = Int64(convolution.outputHeight(shape.height, stride: shape.stride))
            func describe(_ dims: [Int64], _ tag: dnnl_format_tag_t) -> dnnl_memory_desc_t {
                var md = dnnl_memory_desc_t()
                OneDNN.check(dnnl_memory_desc_init_by_tag(&md, Int32(dims.count), dims, dnnl_f32, tag), "describing an image")
                return md
            }
            var source = describe([1, i, Int64(shape.height), Int64(shape.width)], dnnl_nhwc)
            var destination = describe([1, o, outHeight, Int64(shape.width)], dnnl_nhwc)
            var anyWeights = describe([o, i, k, k], dnnl_format_tag_any)
            var biasLayout = describe([o], dnnl_x)
            let pad = k / 2
            let strides: [Int64] = [Int64(shape.stride), 1], padding: [Int64] = [pad, pad]
            var desc = dnnl_convolution_desc_t()
            let status = convolution.bias == nil
                ? dnnl_convolution_forward_desc_init(&desc, dnnl_forward_inference, dnnl_convolution_direct, &source,
                                                     &anyWeights, nil, &destination, strides, padding, padding)
                : dnnl_convolution_forward_desc_init(&desc, dnnl_forward_inference, dnnl_convolution_direct, &source,
                                                     &anyWeights, &biasLayout, &destination, strides, padding, padding)
            OneDNN.check(status, "describing a convolution")
            var attributes: dnnl_primitive_attr_t?
            OneDNN.check(dnnl_primitive_attr_create(&attributes), "creating attributes")
            defer { dnnl_primitive_attr_destroy(attributes) }
            OneDNN.check(dnnl_primitive_attr_set_scratchpad_mode(attributes, dnnl_scratchpad_mode_user), "setting a scratchpad")
            if shape.relu {
                var postOps: dnnl_post_ops_t?
                OneDNN.check(dnnl_post_ops_create(&postOps), "creating post-ops")
                defer { dnnl_post_ops_destroy(postOps) }
                OneDNN.check(dnnl_post_ops_append_eltwise(postOps, 1, dnnl_eltwise_relu, 0, 0), "adding a ReLU")
                OneDNN.check(dnnl_primitive_attr_set_post_ops(attributes, postOps), "setting post-ops")
            }
            var pd: dnnl_primitive_desc_t?
            OneDNN.check(withUnsafePointer(to: &desc) { dnnl_primitive_desc_create(&pd, $0, attributes, OneDNN.engine, nil) },
                         "planning a convolution")
            defer { dnnl_primitive_desc_destroy(pd) }
            EngineLog.debugOnce("oneDNN convolution \(i)→\(o) \(k)×\(k) on \(shape.height)×\(shape.width): "
                                + OneDNN.implementationName(pd))
            var created: dnnl_primitive_t?
            OneDNN.check(dnnl_primitive_create(&created, pd), "creating a convolution")
            EngineWork.didUse(.primitive)
            primitive = created!
            self.source = source
            self.destination = destination
            var scratch = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0)!.pointee
            scratchpad = scratch
            scratchpadFloats = (dnnl_memory_desc_get_size(&scratch) + 3) / 4
            var packed = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0)!.pointee
            packedWeights = .allocate(byteCount: max(dnnl_memory_desc_get_size(&packed), 64), alignment: 64)
            OneDNN.reorder(convolution.weights.pointer, from: describe([o, i, k, k], dnnl_acdb), into: packedWeights, to: packed)
            weights = OneDNN.memory(packed, packedWeights)
            bias = convolution.bias.map { OneDNN.memory(biasLayout, UnsafeMutableRawPointer(mutating: $0.pointer)) }
        }

        deinit {
            dnnl_primitive_destroy(primitive)
            dnnl_memory_destroy(weights)
            if let bias { dnnl_memory_destroy(bias) }
            packedWeights.deallocate()
        }

        func run(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, scratch: Buffer) {
            OneDNN.useCallerThreadOnly()
            let space = scratch.reserve(max(1, scratchpadFloats))
            let memories = [OneDNN.memory(source, UnsafeMutableRawPointer(mutating: input)),
                            OneDNN.memory(destination, output), OneDNN.memory(scratchpad, space)]
            defer { memories.forEach { dnnl_memory_destroy($0) } }
            var arguments = [dnnl_exec_arg_t(arg: openspeech_dnnl_arg_src, memory: memories[0]),
                             dnnl_exec_arg_t(arg: openspeech_dnnl_arg_weights, memory: weights),
                             dnnl_exec_arg_t(arg: openspeech_dnnl_arg_dst, memory: memories[1]),
                             dnnl_exec_arg_t(arg: openspeech_dnnl_arg_scratchpad, memory: memories[2])]
            if let bias { arguments.append(dnnl_exec_arg_t(arg: openspeech_dnnl_arg_bias, memory: bias)) }
            var stream: dnnl_stream_t?
            OneDNN.check(dnnl_stream_create(&stream, OneDNN.engine, UInt32(dnnl_stream_default_flags.rawValue)),
                         "creating a stream")
            defer { dnnl_stream_destroy(stream) }
            OneDNN.check(dnnl_primitive_execute(primitive, stream, Int32(arguments.count), arguments), "convolving")
            OneDNN.check(dnnl_stream_wait(stream), "waiting for a convolution")
            EngineWork.didUse(.product)
        }
    }
    #endif
}
