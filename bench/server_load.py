#!/usr/bin/env python3
"""Throughput of `openspeech serve` through the official `openai` client, beside the same files through
`openspeech transcribe` (one invocation) and faster-whisper's Python API, in one run.

  server_load.py --openspeech BIN --corpus DIR --model ID --model-dir DIR [--concurrency 1,2,4,8]
                 [--subsets a,b] [--compute-type T] [--output FILE]

For each concurrency C a server is started with --max-concurrency C and every English corpus file is sent once,
C requests at a time; reported: requests per minute, audio seconds per second, p50/p95 latency overall and for
the clips of 8-12 s. The CLI and faster-whisper (int8, beam 5, no VAD as its default) run the same files
sequentially. Wall times exclude the server's start; the first request pays the model load, as the CLI run does.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_runs import read_manifest, wav_path  # noqa: E402

import openai  # noqa: E402


def percentile(values, fraction):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(fraction * (len(values) - 1))))] if values else float("nan")


def listening_port(process, log):
    """The port a just-started `openspeech serve` (its output in the file `log`) listens on, once it does."""
    deadline = time.time() + 120
    while time.time() < deadline:
        with open(log.name, encoding="utf-8", errors="replace") as f:
            text = f.read()
        marker = "listening on http://127.0.0.1:"
        if marker in text:
            return int(text.split(marker, 1)[1].split()[0])
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    raise SystemExit(f"server did not start: {open(log.name).read()}")


def start_server(binary, concurrency, compute_type, log):
    process = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--max-concurrency", str(concurrency),
         "--max-queue", "1000", "--compute-type", compute_type, "--no-download"],
        stdout=log, stderr=log)
    return process, f"http://127.0.0.1:{listening_port(process, log)}/v1"


def run_server(args, items, concurrency):
    with tempfile.NamedTemporaryFile("w+", suffix=".log") as log:
        process, base_url = start_server(args.openspeech, concurrency, args.compute_type, log)
        try:
            client = openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0, timeout=3600)

            def one(item):
                start = time.monotonic()
                with open(wav_path(args.corpus, item), "rb") as f:
                    text = client.audio.transcriptions.create(model=args.model, file=f).text
                return item, text, time.monotonic() - start

            start = time.monotonic()
            with ThreadPoolExecutor(max_workers=concurrency) as pool:
                results = list(pool.map(one, items))
            wall = time.monotonic() - start
        finally:
            process.terminate()
            process.wait(timeout=60)
    audio = sum(float(i["duration_s"]) for i in items)
    latencies = [r[2] for r in results]
    ten = [r[2] for r in results if 8 <= float(r[0]["duration_s"]) <= 12]
    return {
        "engine": "openspeech-server", "concurrency": concurrency, "wall_seconds": wall, "audio_seconds": audio,
        "requests_per_minute": 60 * len(items) / wall, "audio_seconds_per_second": audio / wall,
        "p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95),
        "p50_10s": percentile(ten, 0.5), "p95_10s": percentile(ten, 0.95),
        "texts": {r[0]["id"]: r[1] for r in results},
    }


def run_cli(args, items):
    start = time.monotonic()
    out = subprocess.run([args.openspeech, "transcribe", "--model", args.model, "--locale", "en-US", "--quiet",
                          "--compute-type", args.compute_type] + [wav_path(args.corpus, i) for i in items],
                         check=True, capture_output=True, text=True).stdout
    wall = time.monotonic() - start
    audio = sum(float(i["duration_s"]) for i in items)
    return {"engine": "openspeech-cli", "wall_seconds": wall, "audio_seconds": audio,
            "audio_seconds_per_second": audio / wall, "texts": dict(zip([i["id"] for i in items], out.splitlines()))}


def run_faster_whisper(args, items):
    from faster_whisper import WhisperModel
    start = time.monotonic()
    model = WhisperModel(args.model_dir, device="cpu", compute_type="int8")
    for item in items:
        segments, _ = model.transcribe(wav_path(args.corpus, item), beam_size=5, language="en")
        "".join(s.text for s in segments)
    wall = time.monotonic() - start
    audio = sum(float(i["duration_s"]) for i in items)
    return {"engine": "faster-whisper int8", "wall_seconds": wall, "audio_seconds": audio,
            "audio_seconds_per_second": audio / wall}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--openspeech", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--concurrency", default="1,2,4,8")
    parser.add_argument("--subsets", default="")
    parser.add_argument("--compute-type", default="auto")
    parser.add_argument("--output")
    args = parser.parse_args()
    items = read_manifest(args.corpus, [s for s in args.subsets.split(",") if s])
    runs = [run_cli(args, items), run_faster_whisper(args, items)]
    for concurrency in [int(c) for c in args.concurrency.split(",")]:
        runs.append(run_server(args, items, concurrency))
    cli = runs[0]
    print(f"{len(items)} files, {cli['audio_seconds']:.0f} s of audio, model {args.model}")
    print(f"{'run':<34} {'audio s/s':>9} {'req/min':>8} {'p50':>6} {'p95':>6} {'p50 10s':>8} {'p95 10s':>8}")
    for run in runs:
        name = run["engine"] + (f" c={run['concurrency']}" if "concurrency" in run else "")
        extra = (f"{run['requests_per_minute']:>8.1f} {run['p50']:>6.2f} {run['p95']:>6.2f} "
                 f"{run['p50_10s']:>8.2f} {run['p95_10s']:>8.2f}") if "p50" in run else ""
        print(f"{name:<34} {run['audio_seconds_per_second']:>9.1f} {extra}")
        if "texts" in run and run is not cli:
            same = sum(run["texts"].get(k) == v for k, v in cli["texts"].items())
            print(f"{'':<34} same text as the CLI: {same}/{len(cli['texts'])}")
    if args.output:
        with open(args.output, "w") as f:
            json.dump(runs, f, indent=1)


if __name__ == "__main__":
    main()
