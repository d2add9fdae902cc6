#!/usr/bin/env python3
"""faster-whisper on the custom-vocabulary dev set (../shared/bias): the reference beside `whisper-bench bias`.

Transcribes every utterance of the set's manifest.tsv with the same CTranslate2 model directory, beam 5, giving
each utterance's biasing list as `hotwords` or as `initial_prompt` (or nothing), and writes `id<TAB>text` lines
for the set's score.py. Usage:

    bench/bias_faster_whisper.py --model DIR --list 100 --via hotwords --output hyp.tsv
"""

import argparse
import csv
import os
import time

from faster_whisper import WhisperModel


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", default="../shared/bias")
    parser.add_argument("--model", required=True)
    parser.add_argument("--list", choices=["none", "10", "100", "1000"], default="100")
    parser.add_argument("--via", choices=["hotwords", "prompt"], default="hotwords")
    parser.add_argument("--compute-type", default="float32")
    parser.add_argument("--beam-size", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="0: all cores")
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    with open(os.path.join(args.set, "manifest.tsv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    model = WhisperModel(args.model, device="cpu", compute_type=args.compute_type, cpu_threads=args.threads)
    lines, audio, wall, cpu = [], 0.0, 0.0, 0.0
    for row in rows:
        rare = row["rare_words"].split()
        if args.list == "none":
            words = []
        elif args.list == "10":
            distractors = [w for w in row["biasing_100"].split() if w not in rare]
            words = sorted(distractors[::10] + rare)
        else:
            words = row["biasing_" + args.list].split()
        text = ", ".join(words) if words else None
        options = {"hotwords": text} if args.via == "hotwords" else {"initial_prompt": text}
        started, cpu_started = time.perf_counter(), time.process_time()
        segments, info = model.transcribe(os.path.join(args.set, row["audio"]), language="en",
                                          beam_size=args.beam_size, **options)
        hypothesis = "".join(segment.text for segment in segments).replace("\t", " ").replace("\n", " ").strip()
        wall += time.perf_counter() - started
        cpu += time.process_time() - cpu_started
        audio += info.duration
        lines.append(f"{row['id']}\t{hypothesis}\n")
    with open(args.output, "w", encoding="utf-8") as f:
        f.writelines(lines)
    print(f"{audio:.1f} s of audio in {wall:.2f} s ({audio / wall:.1f}x real time), {cpu:.2f} CPU s")


if __name__ == "__main__":
    main()
