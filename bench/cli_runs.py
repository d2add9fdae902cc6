#!/usr/bin/env python3
"""CLI-level runs for bench/cli: `openspeech transcribe` as a user runs it, and faster-whisper's
`WhisperModel.transcribe` (with and without its `vad_filter`), over the same corpus files, each written as a
run JSON in the layout `whisper-bench report` reads (engine, options, wall time, audio seconds, peak RSS, clips).

  cli_runs.py openspeech --openspeech BIN --corpus DIR --model ID --beam-size N [--compute-type T] [--no-vad] [--per-file]
                          --label LABEL --output FILE [--subsets a,b] [--compare FILE]
  cli_runs.py openspeech ... [--batch-size N]   (the CLI's --batch-size: windows encoded together)
  cli_runs.py faster-whisper --corpus DIR --model-dir DIR --compute-type T --beam-size N [--vad-filter | --batched N]
                          --label LABEL --output FILE [--subsets a,b]

The openspeech side times the whole invocation (model load included, as a user waits for it); --per-file runs
one invocation per file. --beam-size is passed on as given (default 5, Whisper's): give Moonshine's own default,
--beam-size 1, to measure it as users run it. --compare FILE reports whether every clip's text is identical to another run's.
--no-fallback decodes at temperature 0 only on both sides (the random-weight shapes of bench/shapes).
"""

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import wave


def read_manifest(corpus, subsets):
    with open(os.path.join(corpus, "manifest.tsv"), encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    header = rows[0]
    items = [dict(zip(header, row)) for row in rows[1:] if len(row) >= len(header)]
    # English clips: the English-only models and the detector comparison are about them.
    items = [i for i in items if i["language"] == "en"]
    if subsets:
        items = [i for i in items if i["subset"] in subsets]
    return items


def wav_path(corpus, item):
    return os.path.join(corpus, "wav16k", item["id"] + ".wav")


def children_peak_rss():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024


def run_openspeech(args, items):
    files = [wav_path(args.corpus, i) for i in items]
    base = [args.openspeech, "transcribe", "--locale", "en-US", "--model", args.model, "--beam-size",
            str(args.beam_size), "--format", "text", "--quiet"] \
        + (["--compute-type", args.compute_type] if args.compute_type else []) \
        + (["--no-vad"] if args.no_vad else []) + (["--batch-size", str(args.batch_size)] if args.batch_size else []) \
        + (["--temperature-increment-on-fallback", "0"] if args.no_fallback else [])
    texts = {}
    seconds = {}
    global cpu_start
    cpu_start = children_cpu()
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        if args.per_file:
            for item, path in zip(items, files):
                t = time.perf_counter()
                subprocess.run(base + ["--output-dir", out, path], check=True)
                seconds[item["id"]] = time.perf_counter() - t
        else:
            subprocess.run(base + ["--output-dir", out] + files, check=True)
        wall = time.perf_counter() - start
        for item in items:
            with open(os.path.join(out, item["id"] + ".txt"), encoding="utf-8") as f:
                texts[item["id"]] = f.read().strip()
    return texts, seconds, wall, 0.0, children_peak_rss()


def temperatures(args):
    return [0.0] if args.no_fallback else [0, 0.2, 0.4, 0.6, 0.8, 1.0]


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def self_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


cpu_start = 0.0


def run_faster_whisper(args, items):
    from faster_whisper import WhisperModel
    t = time.perf_counter()
    model = WhisperModel(args.model_dir, device="cpu", compute_type=args.compute_type or "float32",
                         cpu_threads=os.cpu_count() or 2)
    load = time.perf_counter() - t
    global cpu_start
    cpu_start = self_cpu()
    if args.batched:
        from faster_whisper import BatchedInferencePipeline
        pipeline = BatchedInferencePipeline(model=model)
    texts, seconds = {}, {}
    start = time.perf_counter()
    for item in items:
        t = time.perf_counter()
        if args.batched:
            segments, _ = pipeline.transcribe(wav_path(args.corpus, item), language="en", beam_size=args.beam_size,
                                              batch_size=args.batched)
        else:
            segments, _ = model.transcribe(wav_path(args.corpus, item), language="en", beam_size=args.beam_size,
                                           vad_filter=args.vad_filter, temperature=temperatures(args))
        texts[item["id"]] = "".join(s.text for s in segments).strip()
        seconds[item["id"]] = time.perf_counter() - t
    wall = time.perf_counter() - start
    return texts, seconds, wall, load, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("side", choices=["openspeech", "faster-whisper"])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--openspeech")
    parser.add_argument("--model", default="whisper-tiny.en")
    parser.add_argument("--model-dir")
    parser.add_argument("--compute-type", help="openspeech: the CLI's default unless given; faster-whisper: required")
    parser.add_argument("--beam-size", type=int, default=5)
    parser.add_argument("--no-vad", action="store_true")
    parser.add_argument("--no-fallback", action="store_true",
                        help="temperature 0 only, no fallback on either side (random-weight shapes: bench/shapes)")
    parser.add_argument("--per-file", action="store_true")
    parser.add_argument("--vad-filter", action="store_true")
    parser.add_argument("--batch-size", type=int, default=0, help="openspeech: --batch-size N (0: not given)")
    parser.add_argument("--batched", type=int, default=0,
                        help="faster-whisper: its BatchedInferencePipeline with this batch size (0: WhisperModel)")
    parser.add_argument("--subsets", default="")
    parser.add_argument("--label", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--compare")
    args = parser.parse_args()

    items = read_manifest(args.corpus, [s for s in args.subsets.split(",") if s])
    if args.side == "openspeech":
        texts, seconds, wall, load, rss = run_openspeech(args, items)
        cpu = children_cpu() - cpu_start
    else:
        texts, seconds, wall, load, rss = run_faster_whisper(args, items)
        cpu = self_cpu() - cpu_start
    audio = sum(float(i["duration_s"]) for i in items)
    run = {
        "engine": args.label, "model": args.model, "multilingual": False,
        "options": {"compute_type": args.compute_type or "default", "beam_size": args.beam_size,
                    "temperatures": temperatures(args), "word_timestamps": False},
        "load_seconds": load, "wall_seconds": wall, "cpu_seconds": cpu, "audio_seconds": audio, "peak_rss_bytes": rss,
        "clips": [{"id": i["id"], "subset": i["subset"], "language": i["language"],
                   "duration": float(i["duration_s"]), "reference": i["transcript"], "text": texts[i["id"]],
                   "seconds": seconds.get(i["id"], 0.0), "segments": []} for i in items],
    }
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(run, f, indent=1)
    print(f"{args.label}: {audio:.1f} s of audio in {wall:.1f} s (RTFx {audio / wall:.2f}), CPU {cpu:.1f} s",
          file=sys.stderr)
    if args.compare:
        with open(args.compare, encoding="utf-8") as f:
            other = {c["id"]: c["text"] for c in json.load(f)["clips"]}
        differing = [i["id"] for i in items if other.get(i["id"]) != texts[i["id"]]]
        print(f"{args.label}: identical text to {os.path.basename(args.compare)} on "
              f"{len(items) - len(differing)} of {len(items)} files" + (f" (differ: {differing})" if differing else ""),
              file=sys.stderr)


if __name__ == "__main__":
    main()
