#!/usr/bin/env python3
"""Counts clips whose tokens are identical between runs (whisper-bench or bench/reference_faster_whisper.py JSON).

    bench/token_identity.py REFERENCE.json RUN.json [RUN.json ...]

For each RUN: clips token-identical to REFERENCE (every segment's tokens, timestamps included), overall and per
subset, the differing clip ids, and in how many clips either side used a fallback temperature above 0 (sampling,
whose random draws differ between engines, so such clips cannot be expected to match).
"""

import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        run = json.load(f)
    clips = {}
    for clip in run["clips"]:
        segments = clip.get("segments", [])
        tokens = [t for s in segments for t in s.get("tokens", [])]
        sampled = any((s.get("temperature") or 0) > 0 for s in segments)
        clips[clip["id"]] = (clip.get("subset", "?"), tokens, sampled)
    return clips


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    reference = load(sys.argv[1])
    for path in sys.argv[2:]:
        run = load(path)
        ids = [i for i in reference if i in run]
        per_subset = {}
        differing = []
        sampled = 0
        for i in ids:
            subset, tokens, ref_sampled = reference[i]
            same = run[i][1] == tokens
            total, equal = per_subset.get(subset, (0, 0))
            per_subset[subset] = (total + 1, equal + (1 if same else 0))
            if not same:
                differing.append(i)
            if ref_sampled or run[i][2]:
                sampled += 1
        equal = sum(e for _, e in per_subset.values())
        subsets = ", ".join(f"{s} {e}/{t}" for s, (t, e) in sorted(per_subset.items()))
        print(f"{path}: {equal}/{len(ids)} token-identical ({subsets}); clips with sampling fallback on either side: "
              f"{sampled}; differing: {' '.join(differing)}")


if __name__ == "__main__":
    main()
