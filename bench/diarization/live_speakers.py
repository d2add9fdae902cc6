#!/usr/bin/env python3
"""Scores live speaker labels (issue 45): `live-bench speakers OUT FILES...` writes each file's SpeakerDetector results
with the audio seconds fed when each arrived; this reads them beside the conversations' reference RTTM and prints, per
file and overall, the DER (0.25 s collar, as der.py) and the delay from each change of speaker in the reference to the
first result that labels the new speaker (under the DER's speaker mapping) inside the new turn, in seconds of audio fed.

    live_speakers.py RESULTS_DIR CONVERSATIONS_DIR
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from der import der, read_rttm  # noqa: E402


def changes(reference):
    """(time, speaker, end) of each reference utterance whose speaker differs from the one speaking before it."""
    ordered = sorted(reference, key=lambda t: (t[1], t[2]))
    out = []
    for previous, turn in zip(ordered, ordered[1:]):
        if turn[0] != previous[0]:
            out.append((turn[1], turn[0], turn[2]))
    return out


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round((len(values) - 1) * p)))]


def main():
    results_dir, conversations = sys.argv[1], sys.argv[2]
    all_delays, missed, rows = [], 0, []
    for name in sorted(f[:-6] for f in os.listdir(results_dir) if f.endswith(".jsonl")):
        results = [json.loads(line) for line in open(os.path.join(results_dir, name + ".jsonl")) if line.strip()]
        reference = read_rttm(os.path.join(conversations, name + ".rttm"))
        hypothesis = [(r["speaker"], r["start"], r["end"]) for r in results if r["speaker"]]
        scored = der(reference, hypothesis)
        delays, unlabelled = [], 0
        for time, speaker, end in changes(reference):
            label = scored["mapping"].get(speaker)
            hits = [r["fed"] - time for r in results
                    if r["speaker"] == label and r["end"] > time and r["start"] < end]
            if hits:
                delays.append(max(0.0, min(hits)))
            else:
                unlabelled += 1
        all_delays += delays
        missed += unlabelled
        row = {"file": name, "der": round(scored["der"], 4), "miss": round(scored["miss"], 4),
               "false_alarm": round(scored["false_alarm"], 4), "confusion": round(scored["confusion"], 4),
               "speakers": scored["hypothesis_speakers"], "reference_speakers": scored["reference_speakers"],
               "changes": len(delays) + unlabelled, "unlabelled_changes": unlabelled,
               "delay_median": round(percentile(delays, 0.5), 3), "delay_p90": round(percentile(delays, 0.9), 3),
               "delay_max": round(max(delays, default=float("nan")), 3),
               "within_2s": round(sum(d <= 2.0 for d in delays) / max(1, len(delays) + unlabelled), 3)}
        rows.append(row)
        print(json.dumps(row))
    total = len(all_delays) + missed
    print(json.dumps({"files": len(rows), "mean_der": round(sum(r["der"] for r in rows) / max(1, len(rows)), 4),
                      "right_count": sum(r["speakers"] == r["reference_speakers"] for r in rows),
                      "changes": total, "unlabelled_changes": missed,
                      "delay_median": round(percentile(all_delays, 0.5), 3),
                      "delay_p90": round(percentile(all_delays, 0.9), 3),
                      "delay_max": round(max(all_delays, default=float("nan")), 3),
                      "within_2s": round(sum(d <= 2.0 for d in all_delays) / max(1, total), 3)}))


if __name__ == "__main__":
    main()
