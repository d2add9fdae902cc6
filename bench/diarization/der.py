#!/usr/bin/env python3
"""Diarization error rate between a reference and a hypothesis, the way issue 45's benchmark scores it.

Usage: der.py REF.rttm HYP.rttm [--collar 0.25] [--file NAME]
Prints one JSON object: der, miss, false_alarm, confusion (each a fraction of the reference speech) and
reference_seconds (the scored reference speech, counted once per speaker, so overlap counts twice).

Scoring, on a 10 ms grid (frame i is the interval [i/100, (i+1)/100) and takes the value at its centre):
- reference turns of one speaker that touch or overlap are first merged into one turn (hypothesis turns likewise);
- the collar: every frame whose centre is less than `collar` seconds from a reference turn's start or end is not
  scored (for everyone), as NIST md-eval does with its no-score collar;
- overlapping speech is scored: in each scored frame with nref reference and nhyp hypothesis speakers active,
  missed = max(0, nref - nhyp), false alarm = max(0, nhyp - nref), and
  confusion = min(nref, nhyp) - (number of active reference speakers whose mapped hypothesis speaker is active too);
- speakers are mapped one to one to maximise the total time mapped speakers are active together over the scored
  frames (Hungarian algorithm, scipy.optimize.linear_sum_assignment); unmapped speakers are never correct;
- DER = (missed + false alarm + confusion) / reference speech, all summed over the scored frames.
"""
import argparse
import json
import sys

import numpy as np
from scipy.optimize import linear_sum_assignment

STEP = 0.01


def read_rttm(path, file=None):
    """Turns (speaker, start, end) of the SPEAKER lines of an RTTM file (only those of `file` when given)."""
    turns = []
    with open(path) as handle:
        for line in handle:
            fields = line.split()
            if len(fields) < 8 or fields[0] != "SPEAKER":
                continue
            if file is not None and fields[1] != file:
                continue
            start, duration = float(fields[3]), float(fields[4])
            if duration > 0:
                turns.append((fields[7], start, start + duration))
    return turns


def write_rttm(path, name, turns):
    """Writes turns (speaker, start, end) as standard RTTM SPEAKER lines, sorted by start."""
    with open(path, "w") as handle:
        for speaker, start, end in sorted(turns, key=lambda t: (t[1], t[2], t[0])):
            handle.write(f"SPEAKER {name} 1 {start:.3f} {end - start:.3f} <NA> <NA> {speaker} <NA> <NA>\n")


def merge_turns(turns):
    """Merges the turns of each speaker that touch or overlap."""
    merged = []
    for speaker in sorted({t[0] for t in turns}):
        spans = sorted((s, e) for spk, s, e in turns if spk == speaker and e > s)
        current = None
        for start, end in spans:
            if current is not None and start <= current[1]:
                current[1] = max(current[1], end)
            else:
                if current is not None:
                    merged.append((speaker, current[0], current[1]))
                current = [start, end]
        if current is not None:
            merged.append((speaker, current[0], current[1]))
    return merged


def activity(turns, speakers, frames):
    """Boolean matrix (speaker, frame): frame i is active when start <= (i + 0.5) * STEP < end."""
    matrix = np.zeros((len(speakers), frames), dtype=bool)
    index = {s: i for i, s in enumerate(speakers)}
    for speaker, start, end in turns:
        first = max(0, int(np.ceil(start / STEP - 0.5)))
        last = min(frames, int(np.ceil(end / STEP - 0.5)))
        if last > first:
            matrix[index[speaker], first:last] = True
    return matrix


def der(reference_turns, hypothesis_turns, collar=0.25):
    """DER of hypothesis turns against reference turns, both lists of (speaker, start_seconds, end_seconds)."""
    reference = merge_turns(reference_turns)
    hypothesis = merge_turns(hypothesis_turns)
    end = max([e for _, _, e in reference] + [e for _, _, e in hypothesis] + [0.0])
    frames = int(np.ceil(end / STEP)) + 1
    ref_speakers = sorted({t[0] for t in reference})
    hyp_speakers = sorted({t[0] for t in hypothesis})
    ref = activity(reference, ref_speakers, frames)
    hyp = activity(hypothesis, hyp_speakers, frames)

    scored = np.ones(frames, dtype=bool)
    if collar > 0:
        centres = (np.arange(frames) + 0.5) * STEP
        for boundary in sorted({b for _, start, stop in reference for b in (start, stop)}):
            lo = max(0, int(np.floor((boundary - collar) / STEP)) - 1)
            hi = min(frames, int(np.ceil((boundary + collar) / STEP)) + 1)
            scored[lo:hi] &= np.abs(centres[lo:hi] - boundary) >= collar
    ref = ref[:, scored]
    hyp = hyp[:, scored]

    nref = ref.sum(axis=0)
    nhyp = hyp.sum(axis=0)
    correct = np.zeros(ref.shape[1], dtype=np.int64)
    mapping = {}
    if ref_speakers and hyp_speakers:
        together = ref.astype(np.int64) @ hyp.T.astype(np.int64)
        rows, cols = linear_sum_assignment(-together)
        for r, c in zip(rows, cols):
            if together[r, c] > 0:
                mapping[ref_speakers[r]] = hyp_speakers[c]
                correct += (ref[r] & hyp[c]).astype(np.int64)
    missed = np.maximum(0, nref - nhyp).sum() * STEP
    false_alarm = np.maximum(0, nhyp - nref).sum() * STEP
    confusion = (np.minimum(nref, nhyp) - correct).sum() * STEP
    total = nref.sum() * STEP
    ratio = (lambda x: x / total) if total > 0 else (lambda x: float("nan") if x else 0.0)
    return {
        "der": float(ratio(missed + false_alarm + confusion)),
        "miss": float(ratio(missed)),
        "false_alarm": float(ratio(false_alarm)),
        "confusion": float(ratio(confusion)),
        "reference_seconds": float(total),
        "reference_speakers": len(ref_speakers),
        "hypothesis_speakers": len(hyp_speakers),
        "mapping": mapping,
    }


def self_test():
    """The hand cases: identical, swapped labels, one speaker for two, a miss, a false alarm, overlap."""
    ref = [("A", 0.0, 10.0), ("B", 10.0, 20.0)]
    checks = []
    checks.append(("identical", der(ref, ref)["der"], 0.0))
    checks.append(("swapped labels", der(ref, [("x", 0.0, 10.0), ("y", 10.0, 20.0)])["der"], 0.0))
    one = der(ref, [("x", 0.0, 20.0)], collar=0.0)
    checks.append(("one speaker for two, no collar", one["confusion"], 0.5))
    one_c = der(ref, [("x", 0.0, 20.0)])
    checks.append(("one speaker for two, 0.25 collar", one_c["confusion"], 9.5 / 19.0))
    checks.append(("nothing said", der(ref, [], collar=0.0)["miss"], 1.0))
    fa = der(ref, ref + [("C", 20.0, 25.0)], collar=0.0)
    checks.append(("false alarm 5 s over 20 s", fa["false_alarm"], 0.25))
    overlap_ref = [("A", 0.0, 10.0), ("B", 5.0, 15.0)]
    ov = der(overlap_ref, [("x", 0.0, 15.0)], collar=0.0)
    checks.append(("overlap scored: miss", ov["miss"], 0.25))
    checks.append(("overlap scored: confusion", ov["confusion"], 0.25))
    shifted = der(ref, [("x", 0.0, 10.2), ("y", 10.2, 20.0)])
    checks.append(("boundary 0.2 s late inside the collar", shifted["der"], 0.0))
    failed = 0
    for name, got, want in checks:
        ok = abs(got - want) < 1e-6
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {got:.6f} (want {want:.6f})")
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reference", nargs="?")
    parser.add_argument("hypothesis", nargs="?")
    parser.add_argument("--collar", type=float, default=0.25)
    parser.add_argument("--file", help="score only the RTTM lines of this file name")
    parser.add_argument("--self-test", action="store_true", help="run the hand cases and exit")
    args = parser.parse_args()
    if args.self_test:
        sys.exit(1 if self_test() else 0)
    if not args.reference or not args.hypothesis:
        parser.error("REF.rttm and HYP.rttm are required")
    result = der(read_rttm(args.reference, args.file), read_rttm(args.hypothesis, args.file), args.collar)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
