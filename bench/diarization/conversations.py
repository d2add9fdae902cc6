#!/usr/bin/env python3
"""Builds conversations with known speaker turns from whole utterances of single real speakers (issue 45's benchmark).

Usage:
  conversations.py --speakers N --duration SECONDS --seed S --out DIR [--name NAME]
  conversations.py --standard DIR          the benchmark set: N in 2, 3, 4 and 60, 120, 300 s (9 conversations)

Writes DIR/NAME.wav (16 kHz mono 16-bit PCM), DIR/NAME.rttm (one standard RTTM line per utterance placed:
`SPEAKER NAME 1 start duration <NA> <NA> speaker <NA> <NA>`) and DIR/NAME.json (the parameters, the speakers and
every utterance placed). The default NAME is conv-{N}spk-{DURATION}s-seed{S}.

The RTTM times are those of the samples placed: an utterance's turn runs from its first to its last sample, so the
short silences LibriSpeech and LJ Speech files carry at their start and end and the pauses inside an utterance are
counted as speech of that speaker (nothing is trimmed or voice-activity detected). A 0.25 s collar absorbs most of
the edges; pauses inside utterances remain in the reference.

Speakers (each pool is one real person; every utterance is used at most once per conversation):
  7902  LibriSpeech speaker 7902 (/work/shared/bias, 115 utterances, 512 s)
  4198  LibriSpeech speaker 4198 (corpus, 13 utterances, 135 s)
  7018  LibriSpeech speaker 7018 (corpus, 13 utterances, 131 s)
  LJ    LJ Speech's single reader (corpus LJ001-*, LJ050-*, 9 utterances, 58 s)
The N speakers are drawn from these four by the seed, first among the pools holding at least 80 % of an even share
(0.8 * DURATION / N seconds), then among the others. When a speaker's pool runs out while more than a quarter of
DURATION is still to fill, another real person takes its place under a new label, from the small LibriSpeech
speakers of the corpus, one person each, in this order: 1221, 1688, 2033, 1995, 1089, 1272, 4507, 8455, 2830 (the
conversation then has more than N voices: the JSON's `voices` says how many, and the RTTM labels every real person
apart). When a pool runs out later than that, the conversation ends there and the rest of the file is silence
(the standard set's 2 speakers x 300 s conversation does: 7018's 131 s run out at 253 s).

Rules, all drawn from random.Random(seed) so a seed always gives the same conversation:
- the first N turns introduce every speaker once, in random order; after that the next speaker is drawn among the
  current speakers other than the one who just spoke (never the same speaker twice in a row), weighted by
  min(seconds left in its pool, duration / N) so a small pool speaks less rather than running dry;
- a turn is 1 to 3 utterances of that speaker (uniform), only 1 when its pool holds less than its fair share of the
  time still to fill; utterances are drawn uniformly among those of the pool that still fit before DURATION, a second
  or third one only among those that keep the turn within 12 s (LibriSpeech utterances run to 19 s: three of them
  would make monologues, not a conversation); consecutive utterances of one turn are separated by 0.0–0.3 s;
- between turns, a pause of 0.2–1.5 s (uniform), except that about 15 % of turn changes overlap instead (a counter
  starting at 0.7–1.0 grows by 0.05–0.25 at each change and an overlap comes each time it reaches 1, so even a
  short conversation gets one early, and they are spread rather than clustered): the next speaker
  starts 0.3–1.0 s before the previous one ends (never before the previous turn began, and never while the turn
  before that is still speaking, so at most two people speak at once; an overlap that would be shorter than 0.3 s
  under these limits becomes a 0.2 s pause);
- samples are mixed by integer addition of the 16-bit samples and clipped to the 16-bit range ([-1, 1]);
- the conversation stops when no utterance of any eligible speaker fits; the file is padded with silence to exactly
  DURATION seconds.
"""
import argparse
import csv
import json
import os
import random
import sys
import wave

import numpy as np

RATE = 16000
CORPUS = "/work/shared/corpus"
BIAS = "/work/shared/bias"
MAIN_POOLS = ["7902", "4198", "7018", "LJ"]
RESERVE_POOLS = ["1221", "1688", "2033", "1995", "1089", "1272", "4507", "8455", "2830"]
OVERLAP_SHARE = 0.15
REPLACE_BEFORE = 0.25              # a pool that runs out with less than this share of the time left ends the talk
TURN_LIMIT = 12.0                   # seconds: a turn takes a second or third utterance only within this length
# --standard: (speakers, duration, seed)
STANDARD = [(n, d, 100 * n + d // 60) for n in (2, 3, 4) for d in (60, 120, 300)]


def read_wav(path):
    with wave.open(path, "rb") as w:
        if w.getnchannels() != 1 or w.getframerate() != RATE or w.getsampwidth() != 2:
            raise SystemExit(f"{path}: not 16 kHz mono 16-bit PCM")
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")


def write_wav(path, samples):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(samples.astype("<i2").tobytes())


def load_pools(corpus=CORPUS, bias=BIAS):
    """Pool name -> sorted list of (utterance id, wav path, samples)."""
    pools = {}

    def add(pool, uid, path):
        if os.path.exists(path):
            pools.setdefault(pool, []).append((uid, path, None))

    with open(os.path.join(bias, "manifest.tsv")) as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["id"].startswith("7902-"):
                add("7902", row["id"], os.path.join(bias, row["audio"]))
    with open(os.path.join(corpus, "manifest.tsv")) as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            uid = row["id"]
            path = os.path.join(corpus, "wav16k", uid + ".wav")
            if uid.startswith("LJ001-") or uid.startswith("LJ050-"):
                add("LJ", uid, path)
            elif uid.count("-") == 2 and uid.replace("-", "").isdigit():   # LibriSpeech speaker-chapter-utt
                speaker = uid.split("-")[0]
                if speaker in MAIN_POOLS or speaker in RESERVE_POOLS:
                    add(speaker, uid, path)
    loaded = {}
    for pool, items in pools.items():
        loaded[pool] = [(uid, path, read_wav(path)) for uid, path, _ in sorted(items)]
    return loaded


def build(speakers, duration, seed, pools):
    """Returns (samples int16, placements [(speaker, utterance id, start sample, length)], voices)."""
    if not 2 <= speakers <= len(MAIN_POOLS):
        raise SystemExit(f"--speakers must be 2..{len(MAIN_POOLS)}")
    rng = random.Random(seed)
    total = int(round(duration * RATE))
    left = {p: list(range(len(pools[p]))) for p in pools}

    def pool_seconds(pool):
        return sum(len(pools[pool][i][2]) for i in left[pool]) / RATE

    def fitting(pool, start):
        return [i for i in left[pool] if start + len(pools[pool][i][2]) <= total]

    # the N speakers: first among the pools holding at least 80 % of an even share of the time, then the others
    share = 0.8 * duration / speakers
    big = [p for p in MAIN_POOLS if p in pools and pool_seconds(p) >= share]
    small = [p for p in MAIN_POOLS if p in pools and p not in big]
    rng.shuffle(big)
    rng.shuffle(small)
    chosen = (big + small)[:speakers]
    reserve = [p for p in RESERVE_POOLS if p in pools]
    current = list(chosen)          # the people currently in the conversation
    voices = list(chosen)           # everyone who spoke or was chosen, in order of arrival
    intro = list(chosen)
    rng.shuffle(intro)
    fair = duration / speakers
    overlap_due = rng.uniform(0.7, 1.0)  # an overlap comes when this reaches 1; it grows by 0.05-0.25 a change

    mix = np.zeros(total, dtype=np.int32)
    placements = []
    turns = []                      # (speaker, first sample, end sample)
    while True:
        # where the next turn starts: after a pause, or overlapping the end of the previous turn
        if not turns:
            start = int(round(rng.uniform(0.2, 1.0) * RATE))
        else:
            overlap_due += rng.uniform(OVERLAP_SHARE - 0.1, OVERLAP_SHARE + 0.1)
            pause = int(round(rng.uniform(0.2, 1.5) * RATE))
            start = turns[-1][2] + pause
            if overlap_due >= 1.0:
                overlap_due -= 1.0
                wanted = int(round(rng.uniform(0.3, 1.0) * RATE))
                limit = turns[-1][2] - turns[-1][1]
                if len(turns) >= 2:
                    limit = min(limit, turns[-1][2] - turns[-2][2])
                overlap = min(wanted, limit)
                start = turns[-1][2] - overlap if overlap >= int(0.3 * RATE) else turns[-1][2] + int(0.2 * RATE)
        if start >= total:
            break

        # who speaks
        previous = turns[-1][0] if turns else None
        candidates = [intro.pop(0)] if intro else [s for s in current if s != previous]
        speaker = None
        while candidates:
            if len(candidates) == 1:
                pick = candidates[0]
            else:
                weights = [max(1e-3, min(pool_seconds(c), fair)) for c in candidates]
                pick = rng.choices(candidates, weights=weights)[0]
            if not left[pick]:
                if not reserve or total - start < REPLACE_BEFORE * total:
                    # ran out near the end: the conversation ends here rather than bring in a new voice
                    candidates = []
                    break
                replacement = reserve.pop(0)   # ran out early: another real person takes this place
                current[current.index(pick)] = replacement
                voices.append(replacement)
                pick = replacement
            if fitting(pick, start):
                speaker = pick
                break
            candidates.remove(pick)
        if speaker is None:
            break

        # how many utterances: 1-3, only 1 when the pool is short of its share of the time still to fill
        count = rng.randint(1, 3)
        due = (total - start) / RATE / len(current)     # this speaker's share of the time still to fill
        if pool_seconds(speaker) < due:
            count = 1
        position = start
        for k in range(count):
            options = fitting(speaker, position)
            if k > 0:
                options = [i for i in options if position + len(pools[speaker][i][2]) - start <= TURN_LIMIT * RATE]
            if not options:
                break
            index = rng.choice(options)
            left[speaker].remove(index)
            uid, _, samples = pools[speaker][index]
            mix[position:position + len(samples)] += samples
            placements.append((speaker, uid, position, len(samples)))
            position += len(samples)
            if k + 1 < count:
                position += int(round(rng.uniform(0.0, 0.3) * RATE))
        turns.append((speaker, start, placements[-1][2] + placements[-1][3]))

    mixed = np.clip(mix, -32768, 32767).astype(np.int16)
    return mixed, placements, voices


def write_conversation(out, name, speakers, duration, seed, pools):
    samples, placements, voices = build(speakers, duration, seed, pools)
    os.makedirs(out, exist_ok=True)
    write_wav(os.path.join(out, name + ".wav"), samples)
    with open(os.path.join(out, name + ".rttm"), "w") as handle:
        for speaker, uid, start, length in placements:
            handle.write(f"SPEAKER {name} 1 {start / RATE:.4f} {length / RATE:.4f} <NA> <NA> {speaker} <NA> <NA>\n")
    speech = {}
    for speaker, _, _, length in placements:
        speech[speaker] = speech.get(speaker, 0.0) + length / RATE
    coverage = np.zeros(len(samples), dtype=np.int8)
    for _, _, start, length in placements:
        coverage[start:start + length] += 1
    overlap = float((coverage > 1).sum()) / RATE
    info = {
        "name": name, "speakers": speakers, "duration": duration, "seed": seed,
        "voices": len(voices), "voice_labels": voices,
        "speech_seconds": {k: round(v, 3) for k, v in speech.items()},
        "overlap_seconds": round(overlap, 3),
        "last_speech_end": round(max((st + n for _, _, st, n in placements), default=0) / RATE, 3),
        "utterances": [{"speaker": s, "id": u, "start": round(st / RATE, 4), "duration": round(n / RATE, 4),
                        "start_sample": st, "samples": n} for s, u, st, n in placements],
    }
    with open(os.path.join(out, name + ".json"), "w") as handle:
        json.dump(info, handle, indent=1)
    return info


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--speakers", type=int)
    parser.add_argument("--duration", type=float)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--out")
    parser.add_argument("--name")
    parser.add_argument("--standard", metavar="DIR", help="write the 9 benchmark conversations into DIR")
    parser.add_argument("--corpus", default=CORPUS)
    parser.add_argument("--bias", default=BIAS)
    args = parser.parse_args()
    pools = load_pools(args.corpus, args.bias)
    if args.standard:
        jobs = [(args.standard, f"conv-{n}spk-{d}s-seed{s}", n, d, s) for n, d, s in STANDARD]
    else:
        if args.speakers is None or args.duration is None or args.seed is None or not args.out:
            parser.error("--speakers, --duration, --seed and --out are required (or --standard DIR)")
        if not 60 <= args.duration <= 300:
            print("note: the benchmark uses 60-300 s; building anyway", file=sys.stderr)
        duration = int(args.duration) if float(args.duration).is_integer() else args.duration
        name = args.name or f"conv-{args.speakers}spk-{duration}s-seed{args.seed}"
        jobs = [(args.out, name, args.speakers, duration, args.seed)]
    for out, name, n, d, s in jobs:
        info = write_conversation(out, name, n, d, s, pools)
        print(json.dumps({k: info[k] for k in ("name", "speakers", "voices", "voice_labels", "speech_seconds",
                                                "overlap_seconds", "last_speech_end")}))


if __name__ == "__main__":
    main()
