#!/usr/bin/env python3
"""Runs for bench/language: `openspeech transcribe` with no --locale over the corpus's multilingual clips (one
invocation, JSON output: detected language, its probability, text), scored beside faster-whisper's run of the same
clips with language=None (from reference_faster_whisper.py --detect-language); then the English clips with no
--locale against --locale en-US, the same invocation alternated `--repeats` times, best time of each kept, all files
in one invocation and one invocation per file, to give the time language detection adds.

WER/CER: both engines' text through the same basic normalizer (lower case, punctuation and symbols removed, spaces
collapsed); CER (spaces removed) for ja, ko, zh.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
import unicodedata

CHARACTER_LANGUAGES = {"ja", "ko", "zh"}


# `openspeech --format json` names the language in English words, as OpenAI's verbose_json and Whisper's tokenizer do
# ("spanish"); the manifest and faster-whisper give codes. Whisper's names of the corpus's languages; any other name
# stays as it is (and so counts as wrong, visibly).
WHISPER_NAMES = {"english": "en", "german": "de", "spanish": "es", "french": "fr", "italian": "it", "japanese": "ja",
                 "korean": "ko", "portuguese": "pt", "russian": "ru", "chinese": "zh"}


def language_code(value):
    return WHISPER_NAMES.get(value, value)


def read_manifest(corpus):
    with open(os.path.join(corpus, "manifest.tsv"), encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [dict(zip(rows[0], row)) for row in rows[1:] if len(row) >= len(rows[0])]


def normalize(text):
    kept = "".join(" " if unicodedata.category(c)[0] in "PSZ" else c for c in text.lower())
    return " ".join(kept.split())


def distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def errors(reference, hypothesis, language):
    r, h = normalize(reference), normalize(hypothesis)
    if language in CHARACTER_LANGUAGES:
        r, h = list(r.replace(" ", "")), list(h.replace(" ", ""))
    else:
        r, h = r.split(), h.split()
    return distance(r, h), len(r)


def openspeech(binary, files, extra, output_dir=None):
    command = [binary, "transcribe", *files, *extra, "--quiet"]
    if output_dir:
        command += ["--output-dir", output_dir]
    start, before = time.perf_counter(), os.times()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    after = os.times()
    cpu_seconds.append(after.children_user - before.children_user + after.children_system - before.children_system)
    return time.perf_counter() - start, done.stdout


# CPU time (user + sys) of each openspeech run, in order: steadier than wall time on a loaded machine.
cpu_seconds = []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openspeech", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--compute-type", default="int8")
    parser.add_argument("--beam-size", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--faster-whisper", help="reference_faster_whisper.py's JSON (needed unless --english-only)")
    parser.add_argument("--english-only", action="store_true",
                        help="only the English clips' added time (no multilingual clips, no faster-whisper)")
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    items = read_manifest(args.corpus)
    wav = lambda item: os.path.join(args.corpus, "wav16k", item["id"] + ".wav")
    common = ["--compute-type", args.compute_type, "--beam-size", str(args.beam_size)]

    # Multilingual clips, no language given.
    multilingual = [i for i in items if i["subset"] == "multilingual"]
    rows, ours, theirs = [], {}, {}
    if not args.english_only:
        rows, ours, theirs = score_multilingual(args, multilingual, wav, common)
    english_runs(args, items, wav, common, rows, ours, theirs)


def score_multilingual(args, multilingual, wav, common):
    with tempfile.TemporaryDirectory() as folder:
        seconds, _ = openspeech(args.openspeech, [wav(i) for i in multilingual], common + ["--format", "json"], folder)
        ours = {}
        for item in multilingual:
            with open(os.path.join(folder, item["id"] + ".json"), encoding="utf-8") as f:
                document = json.load(f)
            ours[item["id"]] = {"language": language_code(document["language"]),
                                "probability": document.get("language_probability"), "text": document["text"]}
    with open(args.faster_whisper, encoding="utf-8") as f:
        theirs = {c["id"]: {"language": c["detected_language"], "probability": c["language_probability"],
                            "text": c["text"]} for c in json.load(f)["clips"]}

    languages = sorted({i["language"] for i in multilingual})
    print(f"Multilingual clips, no language given (OpenSpeech {seconds:.1f} s for {len(multilingual)} clips, one invocation)")
    print(f"{'language':<9}{'clips':>6}{'LID OpenSpeech':>16}{'LID faster-whisper':>20}{'WER/CER % OpenSpeech':>22}{'faster-whisper':>16}")
    totals = {"ours": [0, 0, 0, 0], "theirs": [0, 0, 0, 0]}
    rows = []
    for language in languages:
        clips = [i for i in multilingual if i["language"] == language]
        row = {"language": language, "clips": len(clips)}
        for name, runs in (("ours", ours), ("theirs", theirs)):
            right = sum(runs[c["id"]]["language"] == language for c in clips)
            edits = sum(errors(c["transcript"], runs[c["id"]]["text"], language)[0] for c in clips)
            length = sum(errors(c["transcript"], runs[c["id"]]["text"], language)[1] for c in clips)
            row[name] = {"correct": right, "error_rate": edits / max(length, 1)}
            t = totals[name]
            t[0] += right; t[1] += len(clips)
        rows.append(row)
        print(f"{language:<9}{len(clips):>6}{row['ours']['correct']:>13}/{len(clips):<2}{row['theirs']['correct']:>17}/{len(clips):<2}"
              f"{100 * row['ours']['error_rate']:>22.1f}{100 * row['theirs']['error_rate']:>16.1f}")
    print(f"{'all':<9}{totals['ours'][1]:>6}{totals['ours'][0]:>13}/{totals['ours'][1]:<2}{totals['theirs'][0]:>17}/{totals['theirs'][1]:<2}")
    print("per clip (language, probability): " + "; ".join(
        f"{i['id']} {ours[i['id']]['language']} {ours[i['id']]['probability']:.3f} / "
        f"{theirs[i['id']]['language']} {theirs[i['id']]['probability']:.3f}" for i in multilingual))
    return rows, ours, theirs


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def english_runs(args, items, wav, common, rows, ours, theirs):
    # English clips: no --locale (detection, then whisper-tiny.en) against --locale en-US.
    english = [i for i in items if i["language"] == "en" and i["subset"] in ("ls-clean", "jfk", "longform")]
    files = [wav(i) for i in english]
    audio = sum(float(i["duration_s"]) for i in english)
    # The language each English file is detected as, and how sure (one untimed invocation, JSON output).
    detected = {}
    with tempfile.TemporaryDirectory() as folder:
        openspeech(args.openspeech, files, common + ["--format", "json"], folder)
        cpu_seconds.pop()
        for item in english:
            with open(os.path.join(folder, item["id"] + ".json"), encoding="utf-8") as f:
                document = json.load(f)
            detected[item["id"]] = (language_code(document["language"]), document.get("language_probability"))
    print("English clips detected as: " + "; ".join(f"{k} {l} {p:.3f}" for k, (l, p) in detected.items()))
    loads = []
    best = {"auto": float("inf"), "en-US": float("inf")}
    texts = {}
    per_file = {"auto": float("inf"), "en-US": float("inf")}
    cpu = {"all": {"auto": [], "en-US": []}, "per-file": {"auto": [], "en-US": []}}
    for _ in range(args.repeats):
        loads.append(load_average())
        for name, extra in (("en-US", ["--locale", "en-US"]), ("auto", [])):
            elapsed, text = openspeech(args.openspeech, files, common + extra)
            cpu["all"][name].append(cpu_seconds[-1])
            best[name] = min(best[name], elapsed)
            texts[name] = text
        for name, extra in (("en-US", ["--locale", "en-US"]), ("auto", [])):
            total = sum(openspeech(args.openspeech, [f], common + extra)[0] for f in files)
            cpu["per-file"][name].append(sum(cpu_seconds[-len(files):]))
            per_file[name] = min(per_file[name], total)
    print(f"\nEnglish clips ({len(english)} files, {audio:.0f} s: ls-clean, jfk, longform), best of {args.repeats}")
    print(f"{'invocation':<28}{'--locale en-US s':>18}{'no --locale s':>16}{'added':>9}")
    for label, run in (("all files in one", best), ("one per file (load each)", per_file)):
        print(f"{label:<28}{run['en-US']:>18.2f}{run['auto']:>16.2f}{100 * (run['auto'] / run['en-US'] - 1):>8.1f}%")
    loads.append(load_average())
    print(f"CPU s (user + sys), alternated pairs (en-US then no --locale), {args.repeats} each; "
          f"load average (1 min) at each pair's start and the end: {' '.join(f'{v:.1f}' for v in loads)}")
    mean = lambda values: sum(values) / len(values)
    for label, runs in cpu.items():
        en, auto = runs["en-US"], runs["auto"]
        pairs = [100 * (a / e - 1) for a, e in zip(auto, en)]
        print(f"  {label:<10} --locale en-US {' '.join(f'{v:.2f}' for v in en)}; no --locale {' '.join(f'{v:.2f}' for v in auto)}"
              f"; added {100 * (min(auto) / min(en) - 1):+.1f} % best, {100 * (mean(auto) / mean(en) - 1):+.1f} % mean, "
              f"per pair {' '.join(f'{v:+.1f}' for v in pairs)} %")
    print(f"identical text with and without --locale: {texts['auto'] == texts['en-US']}")

    with open(args.output, "w", encoding="utf-8") as f:
        json.dump({"multilingual": rows, "openspeech": ours, "faster_whisper": theirs, "english_best": best,
                   "english_per_file": per_file, "english_cpu": cpu, "identical": texts["auto"] == texts["en-US"],
                   "english_detected": detected, "load_averages": loads}, f, indent=1)


if __name__ == "__main__":
    main()
