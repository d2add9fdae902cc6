#!/usr/bin/env python3
"""Writes a CTranslate2 Whisper directory of a published model's shape with random weights (issue 43).

    bench/whisper_shape.py SHAPE --vocabulary-from DIR --output DIR [--encoder-layers N] [--decoder-layers N] [--seed S]

SHAPE is one of the published Whisper variants (tiny, tiny.en, base, small, small.en, medium, large-v2, large-v3,
large-v3-turbo, distil-large-v3, distil-small.en): its width, heads, layer counts, mel bins and vocabulary. The layer
counts can be reduced (the widths and vocabularies stay real) so that a parity test runs in seconds. The weights are
drawn from a seeded normal distribution; the directory is written by CTranslate2's own model writer
(`ctranslate2.specs.WhisperSpec`), stored in float16 as the published directories are, with `config.json`,
`vocabulary.txt`, `tokenizer.json` and `preprocessor_config.json` (its `feature_size` gives the mel bins).

The vocabulary and tokenizer come from an installed CTranslate2 Whisper directory (--vocabulary-from): an English-only
one for `.en` shapes, a multilingual one (51,865 tokens) otherwise; large-v3's 51,866-token vocabulary is derived from
it as OpenAI made it: `<|yue|>` after `<|su|>`, every later special token one id further, and `<|nocaptions|>` named
`<|nospeech|>`. Written into a temporary folder and renamed into place, so an interrupted run leaves nothing half made.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np
from ctranslate2.specs import whisper_spec

# width, heads, encoder layers, decoder layers, mel bins, vocabulary ("en": 51,864, "v2": 51,865, "v3": 51,866)
SHAPES = {
    "tiny.en": (384, 6, 4, 4, 80, "en"),
    "tiny": (384, 6, 4, 4, 80, "v2"),
    "base.en": (512, 8, 6, 6, 80, "en"),
    "base": (512, 8, 6, 6, 80, "v2"),
    "small.en": (768, 12, 12, 12, 80, "en"),
    "small": (768, 12, 12, 12, 80, "v2"),
    "distil-small.en": (768, 12, 12, 4, 80, "en"),
    "medium.en": (1024, 16, 24, 24, 80, "en"),
    "medium": (1024, 16, 24, 24, 80, "v2"),
    "large-v2": (1280, 20, 32, 32, 80, "v2"),
    "large-v3": (1280, 20, 32, 32, 128, "v3"),
    "large-v3-turbo": (1280, 20, 32, 4, 128, "v3"),
    "distil-large-v3": (1280, 20, 32, 2, 128, "v3"),
}
AUDIO_POSITIONS = 1500
TEXT_POSITIONS = 448
# Spreads of the token embeddings and the decoder's positions: with embeddings this small beside the positions, a
# random decoder does not repeat its input token forever but writes short segments with timestamps, some running past
# the audio's end (measured on tiny.en's shape: at 0.5 and 0.1 every clip decodes as one token repeated 224 times).
EMBED = 0.05
POS = 1.0


def sinusoids(length, channels):
    """Whisper's fixed encoder positions."""
    increment = np.log(10000) / (channels // 2 - 1)
    inverse = np.exp(-increment * np.arange(channels // 2))
    scaled = np.arange(length)[:, None] * inverse[None, :]
    return np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1).astype(np.float32)


def read_vocabulary(directory):
    with open(os.path.join(directory, "vocabulary.txt"), encoding="utf-8") as f:
        return f.read().removesuffix("\n").split("\n")


def vocabulary_and_tokenizer(kind, source):
    """The token list, tokenizer.json and config.json ids for the vocabulary `kind`, from the directory `source`."""
    tokens = read_vocabulary(source)
    with open(os.path.join(source, "tokenizer.json"), encoding="utf-8") as f:
        tokenizer = json.load(f)
    with open(os.path.join(source, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    expected = {"en": 51864, "v2": 51865, "v3": 51865}[kind]
    if len(tokens) != expected:
        sys.exit(f"whisper_shape: {source} has {len(tokens)} tokens; the shape needs a directory of {expected}")
    if kind != "v3":
        return tokens, tokenizer, config
    # large-v3: one more language after <|su|>, the special tokens after it shifted by one.
    inserted = tokens.index("<|su|>") + 1

    def shifted(token_id):
        return token_id + 1 if token_id >= inserted else token_id

    tokens = tokens[:inserted] + ["<|yue|>"] + tokens[inserted:]
    tokens = ["<|nospeech|>" if t == "<|nocaptions|>" else t for t in tokens]
    added = []
    for entry in tokenizer["added_tokens"]:
        entry = dict(entry, id=shifted(entry["id"]))
        if entry["content"] == "<|nocaptions|>":
            entry["content"] = "<|nospeech|>"
        added.append(entry)
        if entry["content"] == "<|su|>":
            added.append(dict(entry, id=inserted, content="<|yue|>"))
    tokenizer["added_tokens"] = sorted(added, key=lambda e: e["id"])
    by_content = {e["content"]: e["id"] for e in tokenizer["added_tokens"]}
    for special in tokenizer.get("post_processor", {}).get("special_tokens", {}).values():
        special["ids"] = [by_content[t] for t in special["tokens"]]
    config = dict(config)
    config["lang_ids"] = list(range(tokens.index("<|en|>"), inserted + 1))
    config["suppress_ids"] = [shifted(i) for i in config["suppress_ids"]]
    config["suppress_ids_begin"] = [shifted(i) for i in config["suppress_ids_begin"]]
    return tokens, tokenizer, config


def build(args):
    width, heads, encoder_layers, decoder_layers, mels, kind = SHAPES[args.shape]
    encoder_layers = args.encoder_layers or encoder_layers
    decoder_layers = args.decoder_layers or decoder_layers
    tokens, tokenizer, config = vocabulary_and_tokenizer(kind, args.vocabulary_from)
    vocabulary = len(tokens)
    rng = np.random.default_rng(args.seed)

    def matrix(rows, columns):
        return (rng.standard_normal((rows, columns), dtype=np.float32) / np.sqrt(columns)).astype(np.float32)

    def vector(n, scale=0.02, mean=0.0):
        return (mean + scale * rng.standard_normal(n, dtype=np.float32)).astype(np.float32)

    def norm(spec):
        spec.gamma = vector(width, 0.1, 1.0)
        spec.beta = vector(width)

    def linear(spec, rows, columns):
        spec.weight = matrix(rows, columns)
        spec.bias = vector(rows)

    spec = whisper_spec.WhisperSpec(encoder_layers, heads, decoder_layers, heads)
    encoder = spec.encoder
    encoder.conv1.weight = (rng.standard_normal((width, mels, 3), dtype=np.float32) / np.sqrt(3 * mels)).astype(np.float32)
    encoder.conv1.bias = vector(width)
    encoder.conv2.weight = (rng.standard_normal((width, width, 3), dtype=np.float32) / np.sqrt(3 * width)).astype(np.float32)
    encoder.conv2.bias = vector(width)
    encoder.position_encodings.encodings = sinusoids(AUDIO_POSITIONS, width)
    norm(encoder.layer_norm)
    for layer in encoder.layer:
        norm(layer.self_attention.layer_norm)
        linear(layer.self_attention.linear[0], 3 * width, width)
        linear(layer.self_attention.linear[1], width, width)
        norm(layer.ffn.layer_norm)
        linear(layer.ffn.linear_0, 4 * width, width)
        linear(layer.ffn.linear_1, width, 4 * width)
    decoder = spec.decoder
    decoder.embeddings.weight = (rng.standard_normal((vocabulary, width), dtype=np.float32) * EMBED).astype(np.float32)
    decoder.projection.weight = decoder.embeddings.weight
    decoder.position_encodings.encodings = vector(TEXT_POSITIONS * width, POS).reshape(TEXT_POSITIONS, width)
    norm(decoder.layer_norm)
    for layer in decoder.layer:
        norm(layer.self_attention.layer_norm)
        linear(layer.self_attention.linear[0], 3 * width, width)
        linear(layer.self_attention.linear[1], width, width)
        norm(layer.attention.layer_norm)
        linear(layer.attention.linear[0], width, width)
        linear(layer.attention.linear[1], 2 * width, width)
        linear(layer.attention.linear[2], width, width)
        norm(layer.ffn.layer_norm)
        linear(layer.ffn.linear_0, 4 * width, width)
        linear(layer.ffn.linear_1, width, 4 * width)
    spec.register_vocabulary(tokens)
    # Word timing's heads: every head of the decoder's second half, as CTranslate2 assumes when a model names none.
    config["alignment_heads"] = [[layer, head] for layer in range(decoder_layers // 2, decoder_layers)
                                 for head in range(heads)]
    for key in ("suppress_ids", "suppress_ids_begin", "lang_ids", "alignment_heads"):
        setattr(spec.config, key, config[key])
    spec.validate()
    spec.optimize(quantization="float16")

    parent = os.path.dirname(os.path.abspath(args.output))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".shape-", dir=parent)
    try:
        spec.save(staging)
        # CTranslate2 writes vocabulary.json; faster-whisper and OpenSpeech also read the tokenizer and mel bins.
        with open(os.path.join(staging, "tokenizer.json"), "w", encoding="utf-8") as f:
            json.dump(tokenizer, f, ensure_ascii=False)
        with open(os.path.join(staging, "preprocessor_config.json"), "w", encoding="utf-8") as f:
            json.dump({"feature_size": mels, "sampling_rate": 16000, "n_fft": 400, "hop_length": 160,
                       "chunk_length": 30, "n_samples": 480000}, f)
        if os.path.exists(args.output):
            shutil.rmtree(args.output)
        os.chmod(staging, 0o755)
        os.rename(staging, args.output)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("shape", choices=sorted(SHAPES))
    parser.add_argument("--vocabulary-from", required=True, help="an installed CTranslate2 Whisper directory")
    parser.add_argument("--output", required=True)
    parser.add_argument("--encoder-layers", type=int, default=0, help="fewer encoder layers than the shape's")
    parser.add_argument("--decoder-layers", type=int, default=0, help="fewer decoder layers than the shape's")
    parser.add_argument("--seed", type=int, default=43)
    build(parser.parse_args())


if __name__ == "__main__":
    main()
