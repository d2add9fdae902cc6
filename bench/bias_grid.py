#!/usr/bin/env python3
"""The custom-vocabulary grid (issue 16) in one invocation: for each model and biasing list size, OpenSpeech's engine
with no biasing, the list as prompt only, trie boost only, and both, beside faster-whisper with no list, with the
list as `hotwords` and as `initial_prompt`, on the same weights, beam and thread count. Scores every run with the
dev set's own score.py (WER, U-WER, B-WER) and reports each run's CPU seconds (all threads, transcription only) and
its cost against the same tool without a list. Run through `bench/bias`, which builds whisper-bench first.
"""

import argparse
import json
import os
import re
import subprocess
import sys


def run(command, log):
    """Runs a command, returns the CPU seconds it reports on its last line ("..., N CPU s")."""
    result = subprocess.run(command, capture_output=True, text=True)
    log.write(" ".join(command) + "\n" + result.stdout + result.stderr + "\n")
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stderr}")
    found = re.findall(r"([0-9.]+) CPU s", result.stdout + result.stderr)
    if not found:
        sys.exit(f"no CPU time in the output of {' '.join(command)}")
    return float(found[-1])


def score(bias_set, hypothesis):
    output = subprocess.run([sys.executable, os.path.join(bias_set, "score.py"), "--manifest",
                             os.path.join(bias_set, "manifest.tsv"), "--hyp", hypothesis, "--json"],
                            capture_output=True, text=True, check=True).stdout
    return json.loads(output)


def metric(scores, name):
    """One figure of the scorer's JSON ({"WER": {"error_rate": ...}, "U-WER": ..., "B-WER": ...}), in %."""
    return float(scores[name]["error_rate"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", required=True)
    parser.add_argument("--whisper-bench", required=True)
    parser.add_argument("--models", required=True, help="comma-separated name=directory pairs")
    parser.add_argument("--lists", default="100,1000")
    parser.add_argument("--beam-size", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--output", required=True, help="folder for hypotheses, the log and summary.json")
    parser.add_argument("--only", default="", help="run only these, comma-separated TOOL:N:BIASING "
                        "(e.g. openspeech:1000:trie,faster-whisper:1000:hotwords,openspeech:none:none)")
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    fw_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bias_faster_whisper.py")
    rows = []
    with open(os.path.join(args.output, "log.txt"), "w", encoding="utf-8") as log:
        for pair in args.models.split(","):
            name, directory = pair.split("=", 1)
            runs = [("openspeech", "none", "none", [])]
            for size in args.lists.split(","):
                runs += [("openspeech", size, "prompt", ["--prompt"]), ("openspeech", size, "trie", ["--trie"]),
                         ("openspeech", size, "prompt+trie", ["--prompt", "--trie"])]
            runs.append(("faster-whisper", "none", "none", []))
            for size in args.lists.split(","):
                runs += [("faster-whisper", size, "hotwords", ["--via", "hotwords"]),
                         ("faster-whisper", size, "initial_prompt", ["--via", "prompt"])]
            if args.only:
                wanted = set(args.only.split(","))
                runs = [r for r in runs if f"{r[0]}:{r[1]}:{r[2]}" in wanted]
            for tool, size, how, flags in runs:
                hypothesis = os.path.join(args.output, f"{name}-{tool}-{size}-{how}.tsv")
                if tool == "openspeech":
                    command = [args.whisper_bench, "bias", "--set", args.set, "--model", directory, "--list", size,
                               "--beam-size", str(args.beam_size), "--threads", str(args.threads),
                               "--output", hypothesis] + flags
                else:
                    command = [sys.executable, fw_script, "--set", args.set, "--model", directory, "--list", size,
                               "--beam-size", str(args.beam_size), "--threads", str(args.threads),
                               "--output", hypothesis] + (flags or ["--via", "hotwords"])
                cpu = run(command, log)
                scores = score(args.set, hypothesis)
                row = {"model": name, "tool": tool, "list": size, "biasing": how, "cpu_s": cpu,
                       "wer": metric(scores, "WER"), "u_wer": metric(scores, "U-WER"),
                       "b_wer": metric(scores, "B-WER")}
                rows.append(row)
                print(f"{name:10} {tool:15} N={size:5} {how:15} WER {row['wer']:6.2f}  U-WER {row['u_wer']:6.2f}  "
                      f"B-WER {row['b_wer']:6.2f}  CPU {cpu:7.1f} s", flush=True)
    with open(os.path.join(args.output, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1)

    print("\n| model | tool | N | biasing | WER | U-WER | B-WER | B-WER vs none | CPU s | cost vs none |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        base = next((r for r in rows if r["model"] == row["model"] and r["tool"] == row["tool"]
                     and r["list"] == "none"), None)
        relative = f"{(row['b_wer'] / base['b_wer'] - 1) * 100:+.0f} %" if base and base["b_wer"] else "-"
        cost = f"{(row['cpu_s'] / base['cpu_s'] - 1) * 100:+.1f} %" if base else "-"
        print(f"| {row['model']} | {row['tool']} | {row['list']} | {row['biasing']} | {row['wer']:.2f} | "
              f"{row['u_wer']:.2f} | {row['b_wer']:.2f} | {relative} | {row['cpu_s']:.1f} | {cost} |")


if __name__ == "__main__":
    main()
