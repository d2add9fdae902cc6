#!/usr/bin/env python3
"""OpenSpeech's diarization beside the reference (senko 0.2.2 on CPU) on the same files in one invocation: DER
(0.25 s collar, der.py) and time for each, and the speed ratio (issue 45's targets: DER within 1 point of the
reference's, at least 2x its speed).

Usage: compare.py OPENSPEECH_BINARY AUDIO... [--runs 1]

Each AUDIO is a 16 kHz mono WAV with a sibling NAME.rttm (conversations.py). senko runs in this process (its model
loading and warm-up excluded, `diarize` alone timed); OpenSpeech runs `openspeech diarize FILE --format rttm` as a
user does, a new process per file, model loading included (OPENSPEECH_HOME must hold campplus-sv-zh-en and
silero-vad). The two alternate file by file, so a machine that slows down slows both. Prints one JSON line per file,
then the totals.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from der import der, read_rttm  # noqa: E402


def seconds_of(path):
    with wave.open(path, "rb") as w:
        return w.getnframes() / w.getframerate()


def turns(rttm_text):
    out = []
    for line in rttm_text.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[0] == "SPEAKER":
            start, duration = float(fields[3]), float(fields[4])
            out.append((fields[7], start, start + duration))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("audio", nargs="+")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()

    from senko import Diarizer
    diarizer = Diarizer(device="cpu", warmup=True, quiet=True)
    totals = {"audio": 0.0, "senko": 0.0, "openspeech": 0.0}
    ders = {"senko": [], "openspeech": []}
    for path in args.audio:
        reference = read_rttm(os.path.splitext(path)[0] + ".rttm")
        audio = seconds_of(path)
        best = {}
        for _ in range(args.runs):
            start = time.perf_counter()
            result = diarizer.diarize(path)
            senko_time = time.perf_counter() - start
            senko_turns = [(s["speaker"], s["start"], s["end"]) for s in (result or {}).get("merged_segments", [])]
            start = time.perf_counter()
            run = subprocess.run([args.binary, "diarize", path, "--format", "rttm"], capture_output=True, text=True, check=True)
            ours_time = time.perf_counter() - start
            best["senko"] = min(best.get("senko", senko_time), senko_time)
            best["openspeech"] = min(best.get("openspeech", ours_time), ours_time)
        senko_score, ours_score = der(reference, senko_turns), der(reference, turns(run.stdout))
        ders["senko"].append(senko_score["der"])
        ders["openspeech"].append(ours_score["der"])
        totals["audio"] += audio
        totals["senko"] += best["senko"]
        totals["openspeech"] += best["openspeech"]
        print(json.dumps({"file": os.path.basename(path), "audio_seconds": round(audio, 1),
                          "senko": {"seconds": round(best["senko"], 2), "der": round(senko_score["der"], 4),
                                    "speakers": len({t[0] for t in senko_turns})},
                          "openspeech": {"seconds": round(best["openspeech"], 2), "der": round(ours_score["der"], 4),
                                         "speakers": len({t[0] for t in turns(run.stdout)})},
                          "speed_ratio": round(best["senko"] / best["openspeech"], 2)}), flush=True)
    print(json.dumps({"total_audio_seconds": round(totals["audio"], 1),
                      "senko": {"seconds": round(totals["senko"], 1), "x_real_time": round(totals["audio"] / totals["senko"], 1),
                                "mean_der": round(sum(ders["senko"]) / len(ders["senko"]), 4)},
                      "openspeech": {"seconds": round(totals["openspeech"], 1),
                                     "x_real_time": round(totals["audio"] / totals["openspeech"], 1),
                                     "mean_der": round(sum(ders["openspeech"]) / len(ders["openspeech"]), 4)},
                      "speed_ratio": round(totals["senko"] / totals["openspeech"], 2)}))


if __name__ == "__main__":
    main()
