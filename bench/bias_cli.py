#!/usr/bin/env python3
"""Custom vocabulary through the command line on the contextual-biasing dev set (../shared/bias): each utterance
transcribed by `openspeech transcribe` with no list (all files in one invocation) or with its biasing list given as
`--context` (one invocation per utterance, its own list), scored by the set's score.py (WER / U-WER / B-WER).

    bench/bias_cli.py [--model ID] [--list none|100|1000|distractors] [--openspeech BIN] [--set DIR] [-- EXTRA ARGS...]

Any model the CLI runs (Moonshine's contextual biasing as well as Whisper's); EXTRA ARGS go to every invocation
(`--beam-size 5`). Hypotheses are written to bench/results/bias-cli-<model>-<list>-<time>.tsv.
"""
import argparse
import csv
import os
import pathlib
import subprocess
import sys
import tempfile
import time

root = pathlib.Path(__file__).resolve().parent.parent
parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--model", default=None, help="catalog id (default: the locale's default)")
parser.add_argument("--list", default="none", choices=["none", "100", "1000", "distractors"],
                    help="distractors: the N=100 list without the utterance's rare words")
parser.add_argument("--openspeech", default=str(root / ".build/release/openspeech"))
parser.add_argument("--set", default=str(root.parent / "shared/bias"))
parser.add_argument("extra", nargs="*")
args = parser.parse_args()

bias = pathlib.Path(args.set)
rows = list(csv.DictReader(open(bias / "manifest.tsv", encoding="utf-8"), delimiter="\t"))
common = ["--locale", "en-US", "--quiet"] + (["--model", args.model] if args.model else []) + args.extra
hypotheses = []
started = time.monotonic()
if args.list == "none":
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([args.openspeech, "transcribe", *[str(bias / r["audio"]) for r in rows], *common,
                        "--output-dir", folder, "--format", "text"], check=True)
        for r in rows:
            text = (pathlib.Path(folder) / (r["id"] + ".txt")).read_text(encoding="utf-8")
            hypotheses.append((r["id"], " ".join(text.split())))
else:
    for r in rows:
        if args.list == "distractors":
            rare = set(r["rare_words"].split())
            words = [w for w in r["biasing_100"].split() if w not in rare]
        else:
            words = r["biasing_" + args.list].split()
        phrases = ", ".join(words)
        result = subprocess.run([args.openspeech, "transcribe", str(bias / r["audio"]), *common, "--context", phrases],
                                check=True, capture_output=True, text=True)
        hypotheses.append((r["id"], " ".join(result.stdout.split())))
elapsed = time.monotonic() - started

results = root / "bench/results"
results.mkdir(parents=True, exist_ok=True)
name = f"bias-cli-{args.model or 'default'}-{args.list}-{time.strftime('%Y%m%d-%H%M%S')}.tsv"
output = results / name
with open(output, "w", encoding="utf-8") as f:
    for utterance, text in hypotheses:
        f.write(f"{utterance}\t{text}\n")
score = subprocess.run([sys.executable, str(bias / "score.py"), "--manifest", str(bias / "manifest.tsv"),
                        "--hyp", str(output)], capture_output=True, text=True, check=True).stdout
print(f"model {args.model or 'default'}, list {args.list}, extra {' '.join(args.extra) or '-'}: {elapsed:.1f} s wall")
print(score.strip())
