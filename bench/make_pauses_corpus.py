#!/usr/bin/env python3
"""Builds a corpus of recordings with pauses (issue 12's "audio with pauses"): the corpus's English clips (the
long-form chapter left out) one after another, each after a pause of 1 to 20 s of quiet room noise (white noise at
about -60 dBFS), joined into files of about three minutes, as dictation, meetings and lectures are. Deterministic
(a fixed seed). Writes DIR/manifest.tsv and DIR/wav16k/*.wav in the corpus's own layout, so `bench/cli --corpus DIR`
and the WER report read it as they read the corpus. The audio stays out of the repository: write DIR under
bench/results or /tmp.

    bench/make_pauses_corpus.py OUT_DIR [--corpus ../shared/corpus] [--minutes 3] [--files 4]
"""

import argparse
import array
import csv
import os
import random
import wave


def read_wav(path):
    with wave.open(path, "rb") as f:
        if f.getframerate() != 16000 or f.getnchannels() != 1 or f.getsampwidth() != 2:
            raise SystemExit(f"{path}: expected 16 kHz mono 16-bit")
        samples = array.array("h")
        samples.frombytes(f.readframes(f.getnframes()))
        return samples


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--corpus", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus"))
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--files", type=int, default=4)
    args = parser.parse_args()
    with open(os.path.join(args.corpus, "manifest.tsv"), encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    header = rows[0]
    items = [dict(zip(header, row)) for row in rows[1:] if len(row) >= len(header)]
    clips = [i for i in items if i["language"] == "en" and i["subset"] != "longform"]
    generator = random.Random(12)
    os.makedirs(os.path.join(args.out, "wav16k"), exist_ok=True)
    lines = ["\t".join(header)]
    index = 0
    for number in range(args.files):
        samples, words = array.array("h"), []
        while len(samples) < args.minutes * 60 * 16000:
            pause = int(generator.uniform(1.0, 20.0) * 16000)
            samples.extend(int(generator.gauss(0, 33)) for _ in range(pause))  # about -60 dBFS
            clip = clips[index % len(clips)]
            samples.extend(read_wav(os.path.join(args.corpus, "wav16k", clip["id"] + ".wav")))
            words.append(clip["transcript"])
            index += 1
        samples.extend(int(generator.gauss(0, 33)) for _ in range(3 * 16000))
        name = f"pauses-{number + 1:02d}"
        with wave.open(os.path.join(args.out, "wav16k", name + ".wav"), "wb") as f:
            f.setnchannels(1)
            f.setsampwidth(2)
            f.setframerate(16000)
            f.writeframes(samples.tobytes())
        row = {key: "" for key in header}
        row.update(id=name, subset="pauses", duration_s=f"{len(samples) / 16000:.3f}", language="en",
                   source_path="bench/make_pauses_corpus.py", transcript=" ".join(words))
        lines.append("\t".join(row[key] for key in header))
    with open(os.path.join(args.out, "manifest.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{args.files} files of about {args.minutes} minutes in {args.out}")


if __name__ == "__main__":
    main()
