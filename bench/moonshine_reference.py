#!/usr/bin/env python3
"""Moonshine through ONNX Runtime on the catalog's own files: the reference the engine's Moonshine must match
(issue 44: greedy tokens on the corpus's English clips) and the speed it must beat.

Usage: moonshine_reference.py MODEL_DIR [--max-tokens-per-second 6.5] AUDIO...
MODEL_DIR is an installed `moonshine-base-en` (encoder_model.ort, decoder_model_merged.ort, tokenizer.bin); each
AUDIO is any file ffmpeg reads, converted to 16 kHz mono float32. Prints one JSON object a line: the file, its
greedy tokens (without the start token, up to the end token), their text, and the seconds the encoder and the decoder
took (session creation excluded).

The decoding: the encoder over the whole clip (no padding), then the merged decoder one token at a time from
`<s>` (1), its first step without a cache (`use_cache_branch` false), every later step with the self-attention
cache it returned and the cross-attention cache of the first step, until `</s>` (2) or the clip's token budget.
"""
import json
import subprocess
import sys
import time

import numpy as np
import onnxruntime as ort

START, END = 1, 2


def load_audio(path):
    raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "f32le", "-ac", "1", "-ar", "16000", "-"],
                         check=True, capture_output=True).stdout
    return np.frombuffer(raw, np.float32)


def read_pieces(path):
    data = open(path, "rb").read()
    pieces, position = [], 0
    while position < len(data):
        count = data[position]
        pieces.append(data[position + 1:position + 1 + count])
        position += 1 + count
    return pieces


def decode_text(pieces, tokens):
    joined = b"".join(pieces[t] for t in tokens if END < t < len(pieces))
    return joined.decode("utf-8", "replace").replace("\u2581", " ")


def transcribe(encoder, decoder, samples, budget):
    began = time.perf_counter()
    hidden = encoder.run(None, {"input_values": samples[None, :]})[0]
    encoded = time.perf_counter()
    inputs = [i.name for i in decoder.get_inputs()]
    outputs = [o.name for o in decoder.get_outputs()]
    heads, head_dim = decoder.get_inputs()[2].shape[1], decoder.get_inputs()[2].shape[3]
    past = {name: np.zeros((1, heads, 0, head_dim), np.float32) for name in inputs if name.startswith("past_key_values")}
    tokens, use_cache = [START], False
    while len(tokens) - 1 < budget:
        feeds = {"input_ids": np.array([[tokens[-1]]], np.int64), "encoder_hidden_states": hidden,
                 "use_cache_branch": np.array([use_cache])}
        feeds.update(past)
        values = decoder.run(None, feeds)
        for name, value in zip(outputs[1:], values[1:]):
            if use_cache and ".encoder." in name:
                continue  # the cross-attention cache is the first step's
            past[name.replace("present", "past_key_values")] = value
        use_cache = True
        token = int(np.argmax(values[0][0, -1]))
        if token == END:
            break
        tokens.append(token)
    return tokens[1:], encoded - began, time.perf_counter() - encoded


def main():
    args = sys.argv[1:]
    rate = 6.5
    if "--max-tokens-per-second" in args:
        index = args.index("--max-tokens-per-second")
        rate = float(args[index + 1])
        del args[index:index + 2]
    model_dir, files = args[0], args[1:]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    encoder = ort.InferenceSession(f"{model_dir}/encoder_model.ort", options, providers=["CPUExecutionProvider"])
    decoder = ort.InferenceSession(f"{model_dir}/decoder_model_merged.ort", options, providers=["CPUExecutionProvider"])
    pieces = read_pieces(f"{model_dir}/tokenizer.bin")
    for path in files:
        samples = load_audio(path)
        tokens, encode_seconds, decode_seconds = transcribe(encoder, decoder, samples,
                                                           max(1, int(len(samples) / 16000 * rate)))
        print(json.dumps({"file": path, "tokens": tokens, "text": decode_text(pieces, tokens),
                          "encoder_seconds": round(encode_seconds, 4), "decoder_seconds": round(decode_seconds, 4)}),
              flush=True)


if __name__ == "__main__":
    main()
