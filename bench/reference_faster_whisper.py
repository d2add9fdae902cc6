#!/usr/bin/env python3
"""Runs faster-whisper over a corpus folder and writes what it produced as JSON.

The reference side of OpenSpeech's parity tests and benchmark: the same model directory
(CTranslate2 format), the same 16 kHz WAV audio, chosen compute type and beam size.

Corpus folder layout: manifest.tsv (tab-separated, header line, no quoting; columns id, subset,
duration_s, language, ..., transcript) and wav16k/<id>.wav (16 kHz mono 16-bit PCM).

Output JSON: run settings, versions, load time, transcription wall time, audio seconds, peak RSS,
and per clip the text, the segments (times, tokens, log-probability, no-speech probability,
temperature used) and, with --word-timestamps, the words with times and probabilities.
"""

import argparse
import csv
import json
import os
import platform
import resource
import sys
import time
import wave

import numpy as np


def read_manifest(corpus):
    with open(os.path.join(corpus, "manifest.tsv"), encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    header, body = rows[0], rows[1:]
    items = []
    for row in body:
        if len(row) < len(header):
            continue
        item = dict(zip(header, row))
        items.append(item)
    return items


def read_wav16k(path):
    """16-bit PCM mono 16 kHz WAV as float32 in [-1, 1), the way faster-whisper's decode_audio scales."""
    with wave.open(path, "rb") as w:
        if w.getframerate() != 16000 or w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise ValueError(f"{path}: expected 16 kHz mono 16-bit WAV")
        data = w.readframes(w.getnframes())
    return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0


def peak_rss_bytes():
    # ru_maxrss is in kilobytes on Linux, bytes on macOS.
    value = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return value if sys.platform == "darwin" else value * 1024


def parse_list(text):
    return [part for part in (text or "").split(",") if part]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="folder with manifest.tsv and wav16k/")
    parser.add_argument("--model", required=True, help="CTranslate2 Whisper model directory")
    parser.add_argument("--compute-type", default="float32", help="int8, float32 ... (default float32)")
    parser.add_argument("--beam-size", type=int, default=1)
    parser.add_argument("--temperatures", default="0,0.2,0.4,0.6,0.8,1.0",
                        help="comma-separated fallback temperatures (default faster-whisper's; '0' for none)")
    parser.add_argument("--word-timestamps", action="store_true")
    parser.add_argument("--without-timestamps", action="store_true", help="decode with <|notimestamps|>")
    parser.add_argument("--vad", action="store_true", help="faster-whisper's Silero VAD filter (default off)")
    parser.add_argument("--no-condition-on-previous-text", action="store_true")
    parser.add_argument("--detect-language", action="store_true",
                        help="let multilingual models detect the language instead of using the manifest's")
    parser.add_argument("--languages", default="", help="only clips in these languages, e.g. 'en'")
    parser.add_argument("--subsets", default="", help="only clips of these subsets")
    parser.add_argument("--ids", default="", help="only these clip ids")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="CTranslate2 intra threads")
    parser.add_argument("--output", required=True, help="JSON file to write ('-' for stdout)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()

    import ctranslate2
    import faster_whisper
    from faster_whisper import WhisperModel

    items = read_manifest(args.corpus)
    if args.languages:
        items = [i for i in items if i["language"] in parse_list(args.languages)]
    if args.subsets:
        items = [i for i in items if i["subset"] in parse_list(args.subsets)]
    if args.ids:
        wanted = parse_list(args.ids)
        items = [i for i in items if i["id"] in wanted]

    rss_before_load = peak_rss_bytes()
    start = time.perf_counter()
    model = WhisperModel(args.model, device="cpu", compute_type=args.compute_type, cpu_threads=args.threads)
    load_seconds = time.perf_counter() - start
    multilingual = model.model.is_multilingual
    temperatures = [float(t) for t in parse_list(args.temperatures)]

    clips = []
    audio_seconds = 0.0
    wall_seconds = 0.0
    for n, item in enumerate(items):
        if not multilingual and item["language"] != "en":
            continue
        samples = read_wav16k(os.path.join(args.corpus, "wav16k", item["id"] + ".wav"))
        language = None if (args.detect_language or not multilingual) else item["language"]
        start = time.perf_counter()
        segments, info = model.transcribe(
            samples,
            language=language,
            task="transcribe",
            beam_size=args.beam_size,
            temperature=temperatures if len(temperatures) > 1 else temperatures[0],
            condition_on_previous_text=not args.no_condition_on_previous_text,
            without_timestamps=args.without_timestamps,
            word_timestamps=args.word_timestamps,
            vad_filter=args.vad,
        )
        segments = list(segments)  # decoding happens while iterating
        seconds = time.perf_counter() - start
        wall_seconds += seconds
        duration = len(samples) / 16000.0
        audio_seconds += duration
        clip = {
            "id": item["id"],
            "subset": item["subset"],
            "language": item["language"],
            "duration": duration,
            "reference": item.get("transcript", ""),
            "text": "".join(s.text for s in segments),
            "detected_language": info.language,
            "language_probability": info.language_probability,
            "seconds": seconds,
            "segments": [
                {
                    "id": s.id,
                    "seek": s.seek,
                    "start": s.start,
                    "end": s.end,
                    "text": s.text,
                    "tokens": list(s.tokens),
                    "avg_logprob": s.avg_logprob,
                    "compression_ratio": s.compression_ratio,
                    "no_speech_prob": s.no_speech_prob,
                    "temperature": s.temperature,
                    **({"words": [{"start": w.start, "end": w.end, "word": w.word, "probability": w.probability}
                                  for w in (s.words or [])]} if args.word_timestamps else {}),
                }
                for s in segments
            ],
        }
        clips.append(clip)
        if not args.quiet:
            print(f"[{n + 1}/{len(items)}] {item['id']} {duration:.1f}s in {seconds:.2f}s: {clip['text'][:70]}",
                  file=sys.stderr)

    result = {
        "engine": "faster-whisper",
        "faster_whisper_version": faster_whisper.__version__,
        "ctranslate2_version": ctranslate2.__version__,
        "model": os.path.basename(os.path.normpath(args.model)),
        # The instruction-set limit this run had (bench/run's AVX2 rows), "none" for the CPU's full ISA.
        "isa_limit": os.environ.get("CT2_FORCE_CPU_ISA") or os.environ.get("ONEDNN_MAX_CPU_ISA") or "none",
        "model_path": os.path.abspath(args.model),
        "multilingual": multilingual,
        "corpus": os.path.abspath(args.corpus),
        "options": {
            "compute_type": args.compute_type,
            "beam_size": args.beam_size,
            "temperatures": temperatures,
            "word_timestamps": args.word_timestamps,
            "without_timestamps": args.without_timestamps,
            "vad": args.vad,
            "condition_on_previous_text": not args.no_condition_on_previous_text,
            "detect_language": args.detect_language,
            "threads": args.threads,
        },
        "machine": {"platform": platform.platform(), "processor": platform.processor(), "cpus": os.cpu_count()},
        "load_seconds": load_seconds,
        "wall_seconds": wall_seconds,
        "audio_seconds": audio_seconds,
        "rtfx": audio_seconds / wall_seconds if wall_seconds > 0 else None,
        "rss_before_load_bytes": rss_before_load,
        "peak_rss_bytes": peak_rss_bytes(),
        "clips": clips,
    }
    text = json.dumps(result, ensure_ascii=False, indent=1)
    if args.output == "-":
        sys.stdout.write(text + "\n")
    else:
        tmp = args.output + ".tmp"
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        os.replace(tmp, args.output)


if __name__ == "__main__":
    main()
