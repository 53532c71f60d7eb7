#!/usr/bin/env python3
"""Replays the wake word's two stages over what `parley-benchmarks wakeverify` measured.

The first stage is the "Hey Parley" head's score every 80 ms chunk; where it reached the
measurement's floor, the second stage's score is there too (whisper.cpp led through "Hey
Parley": the phrase's log-probability and its shortfall against the model's own first choices).
A detection is a chunk where the head's score reaches `first` and the second stage agrees
(shortfall <= `shortfall`); after a detection the detector is quiet for 2 s (it restarts), and
after a refusal the second stage is asked again no sooner than `gap` chunks later.

Recall counts a wake phrase heard from 0.48 s before to 0.96 s after its end (train.py's rule);
a false accept is a detection in the streams that never say it, blamed on the last piece begun
before it.

    scripts/wake_word/cascade.py WAKEVERIFY.json [--first 0.5 ...] [--shortfall 1 ...] [--gap 3]
"""
from __future__ import annotations

import argparse
import json

REFRACTORY = 25     # chunks (2 s): the detector restarts after a detection


def detections(scores: list[float], verified: dict[str, list[float]], first: float, shortfall: float | None,
               gap: int) -> tuple[list[int], int]:
    """Chunks where the cascade fires, and how many times the second stage ran."""
    fired, until, next_check, checks = [], -1, -1, 0
    for index, score in enumerate(scores):
        if index < until or score < first:
            continue
        if shortfall is None:
            fired.append(index)
            until = index + REFRACTORY
            continue
        if index < next_check:
            continue
        value = verified.get(str(index))
        if value is None:
            continue
        checks += 1
        if value[1] <= shortfall:
            fired.append(index)
            until = index + REFRACTORY
        else:
            next_check = index + gap
    return fired, checks


def measure(report: dict, first: float, shortfall: float | None, gap: int) -> dict:
    chunk = report["chunk"]
    by_group: dict[str, list[bool]] = {}
    checks = 0
    for phrase in report["phrases"]:
        fired, n = detections(phrase["scores"], phrase["verified"], first, shortfall, gap)
        checks += n
        end = phrase["end"] // chunk
        by_group.setdefault(phrase["group"], []).append(any(end - 6 <= f <= end + 12 for f in fired))
    false, blamed, seconds = 0, {}, 0.0
    for stream in report["streams"]:
        seconds += len(stream["scores"]) * chunk / report["rate"]
        fired, n = detections(stream["scores"], stream["verified"], first, shortfall, gap)
        checks += n
        for f in fired:
            false += 1
            end = (f + 1) * chunk
            kinds = [kind for kind, start, _ in stream["pieces"] if start < end and kind != "silence"]
            kind = kinds[-1] if kinds else "silence"
            blamed[kind] = blamed.get(kind, 0) + 1
    hours = seconds / 3600
    unseen = [ok for group, oks in by_group.items() if "trained voice" not in group for ok in oks]
    return {
        "first": first, "shortfall": shortfall,
        "recall_unseen": sum(unseen) / len(unseen) if unseen else float("nan"),
        "false_accepts_per_hour": false / hours if hours else float("nan"),
        "not_near_misses_per_hour": sum(n for k, n in blamed.items() if "near miss" not in k) / hours if hours else float("nan"),
        "second_stage_runs_per_hour": checks / hours if hours else float("nan"),
        "recall_by_voice": {g: [round(sum(v) / len(v), 4), len(v)] for g, v in by_group.items()},
        "false_accepts_by_piece": dict(sorted(blamed.items(), key=lambda kv: -kv[1])),
        "hours": hours,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--first", type=float, nargs="+", default=[0.3, 0.5, 0.8])
    parser.add_argument("--shortfall", type=float, nargs="+", default=[0.5, 1, 2, 3, 4])
    parser.add_argument("--gap", type=int, default=3)
    parser.add_argument("--details", action="store_true")
    args = parser.parse_args()
    with open(args.report) as f:
        report = json.load(f)
    print(f"{len(report['phrases'])} wake phrases; window {report['window']} s; second stage median {report['verify_ms_median']:.0f} ms")
    print("first  shortfall  recall(unseen)  FA/h   FA/h not near  2nd stage runs/h")
    for first in args.first:
        for shortfall in [None] + args.shortfall:
            r = measure(report, first, shortfall, args.gap)
            print(f"{first:5.2f}  {'-' if shortfall is None else shortfall:>9}  {r['recall_unseen']:14.3f}  {r['false_accepts_per_hour']:5.1f}"
                  f"  {r['not_near_misses_per_hour']:13.1f}  {r['second_stage_runs_per_hour']:8.0f}")
            if args.details:
                print("   ", json.dumps(r["recall_by_voice"]), json.dumps(r["false_accepts_by_piece"]))


if __name__ == "__main__":
    main()
