#!/usr/bin/env python3
"""Reference Silero VAD probabilities for the Swift parity tests.

Usage: silero_onnx_reference.py MODEL_DIR [--weights onnx|safetensors] CLIP.f32 ...
Each clip is raw little-endian float32 mono 16 kHz samples. Prints a JSON list, one list of per-chunk
probabilities per clip: chunks of 512 samples, the last zero-padded, 64 samples of context from the previous
chunk (zeros at the start), state reset at each clip's start.

--weights onnx (default) runs silero_vad.onnx with onnxruntime. --weights safetensors runs
silero_vad_16k.safetensors (a different checkpoint in silero-vad 6.2.3) through the same architecture in numpy,
which matches onnxruntime to 1e-6 when given the ONNX file's weights.
"""
import json
import os
import struct
import sys

import numpy as np

CHUNK, CONTEXT = 512, 64


def chunk_windows(samples):
    padded = np.concatenate([samples, np.zeros((-len(samples)) % CHUNK, np.float32)])
    with_context = np.concatenate([np.zeros(CONTEXT, np.float32), padded])
    for start in range(0, len(padded), CHUNK):
        yield with_context[start:start + CONTEXT + CHUNK]


def onnx_probabilities(model_dir, samples):
    import onnxruntime
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(os.path.join(model_dir, "silero_vad.onnx"), sess_options=options,
                                           providers=["CPUExecutionProvider"])
    state = np.zeros((2, 1, 128), np.float32)
    rate = np.array(16000, np.int64)
    result = []
    for window in chunk_windows(samples):
        out, state = session.run(None, {"input": window[None, :], "state": state, "sr": rate})
        result.append(float(out[0, 0]))
    return result


def load_safetensors(path):
    with open(path, "rb") as f:
        length = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(length))
        data = f.read()
    weights = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        weights[name] = np.frombuffer(data[begin:end], dtype=np.float32).reshape(info["shape"])
    return weights


def numpy_probabilities(model_dir, samples):
    w = load_safetensors(os.path.join(model_dir, "silero_vad_16k.safetensors"))
    basis = w["stft_conv.weight"][:, 0, :]

    def conv_relu(x, name, stride):
        weight, bias = w[name + ".weight"], w[name + ".bias"]
        padded = np.pad(x, ((0, 0), (1, 1)))
        steps = (x.shape[1] - 1) // stride + 1
        cols = np.stack([padded[:, t * stride:t * stride + 3] for t in range(steps)], axis=-1)
        return np.maximum(np.einsum("ock,ckt->ot", weight, cols) + bias[:, None], 0)

    def sigmoid(x):
        return 1 / (1 + np.exp(-x))

    h = np.zeros(128, np.float32)
    c = np.zeros(128, np.float32)
    result = []
    for window in chunk_windows(samples):
        x = np.concatenate([window, window[-2:-CONTEXT - 2:-1]])  # reflect-pad 64 on the right
        frames = np.stack([x[i * 128:i * 128 + 256] for i in range(4)], axis=1)
        spectrum = basis @ frames
        a = np.sqrt(spectrum[:129] ** 2 + spectrum[129:] ** 2)
        for name, stride in (("conv1", 1), ("conv2", 2), ("conv3", 2), ("conv4", 1)):
            a = conv_relu(a, name, stride)
        gates = (w["lstm_cell.weight_ih"] @ a[:, 0] + w["lstm_cell.bias_ih"]
                 + w["lstm_cell.weight_hh"] @ h + w["lstm_cell.bias_hh"])
        i, f, g, o = np.split(gates, 4)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        logit = w["final_conv.weight"][0, :, 0] @ np.maximum(h, 0) + w["final_conv.bias"][0]
        result.append(float(sigmoid(logit)))
    return result


def main(argv):
    model_dir, rest = argv[1], argv[2:]
    mode = "onnx"
    if rest[:1] == ["--weights"]:
        mode, rest = rest[1], rest[2:]
    run = onnx_probabilities if mode == "onnx" else numpy_probabilities
    clips = [np.fromfile(path, dtype="<f4") for path in rest]
    json.dump([run(model_dir, clip) for clip in clips], sys.stdout)


if __name__ == "__main__":
    main(sys.argv)
