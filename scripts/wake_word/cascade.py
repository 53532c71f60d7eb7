#!/usr/bin/env python3
"""Replays the wake word's two stages over what `parley-benchmarks wakeverify` measured.

The first stage is the "Hey Parley" head's score every 80 ms chunk; where it reached the
measurement's floor, the second stage's score is there too (whisper.cpp led through "Hey
Parley": the phrase's log-probability and its shortfall against the model's own first choices).

Two ways to wake are replayed, as the Swift code runs them:

- the head alone (`WakeWordDetector` on its own): a detection at the first chunk whose score
  reaches the threshold, then 2 s of quiet while the detector starts afresh;
- the head and the check (`WhisperWakePhraseCheck.spotter`): the detector proposes each peak of
  its score from `floor` on (`WakeScorePeak`: the first chunk that scores lower than the run's
  best, or the run's fifth chunk, with the best score `p`), and the check counts it when
  `shortfall - weight * ln(p / (1 - p)) <= allowance`. A refusal is forgotten and proposals in
  the next `gap` chunks (0.24 s) are not checked; a confirmation is a detection, then 2 s of quiet.
  Where a proposal's chunk scored below the measurement's floor, the check of the chunk before
  stands in for it (80 ms less audio).

Recall counts a wake phrase heard from 0.48 s before to 0.96 s after its end (train.py's rule);
a false accept is a detection in the streams that never say it, blamed on the piece it would be
credited to by that rule (else on the last piece begun before it).

    scripts/wake_word/cascade.py WAKEVERIFY.json [--head 0.8 ...] [--floor 0.3 ...]
        [--weight 1 ...] [--allowance 4 ...] [--gap 3] [--details]
"""
from __future__ import annotations

import argparse
import json
import math

REFRACTORY = 25     # chunks (2 s): the detector restarts after a detection
LONGEST_RISE = 4    # WakeScorePeak.longestRise


def head_alone(scores: list[float], threshold: float) -> tuple[list[int], int]:
    fired, until = [], -1
    for index, score in enumerate(scores):
        if index >= until and score >= threshold:
            fired.append(index)
            until = index + REFRACTORY
    return fired, 0


def peaks(scores: list[float], floor: float) -> list[tuple[int, float]]:
    """(chunk, best score) where WakeScorePeak fires."""
    out, best, length = [], None, 0
    for index, score in enumerate(scores):
        if best is not None and (score < best or length >= LONGEST_RISE):
            out.append((index, best))
            best, length = None, 0
        elif score >= floor:
            best = score if best is None else max(best, score)
            length += 1
    return out


def logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def checked(scores: list[float], verified: dict[str, list[float]], floor: float, weight: float, allowance: float,
            gap: int) -> tuple[list[int], int]:
    """Chunks where the two stages wake, and how many times the check ran."""
    fired, until, next_check, checks = [], -1, -1, 0
    for index, best in peaks(scores, floor):
        if index < until or index < next_check:
            continue
        value = verified.get(str(index)) or verified.get(str(index - 1))
        if value is None:
            continue
        checks += 1
        if value[1] - weight * logit(best) <= allowance:
            fired.append(index)
            until = index + REFRACTORY
        else:
            next_check = index + gap
    return fired, checks


def blame(pieces: list, fired: int, chunk: int) -> str:
    """The piece a false accept at chunk `fired` is blamed on: the one it would be credited to
    if it were a wake phrase (recall's window, 0.48 s before to 0.96 s after the piece's end;
    the earliest such), else the last piece begun before the chunk ended. A detection at the
    head's peak comes up to 0.4 s after the words that caused it, often in the next piece."""
    spoken = [(kind, start, end) for kind, start, end in pieces if kind != "silence"]
    credited = [kind for kind, _, end in spoken if end // chunk - 6 <= fired <= end // chunk + 12]
    if credited:
        return credited[0]
    begun = [kind for kind, start, _ in spoken if start < (fired + 1) * chunk]
    return begun[-1] if begun else "silence"


def measure(report: dict, wake) -> dict:
    chunk = report["chunk"]
    by_group: dict[str, list[bool]] = {}
    checks = 0
    for phrase in report["phrases"]:
        fired, _ = wake(phrase["scores"], phrase["verified"])
        end = phrase["end"] // chunk
        by_group.setdefault(phrase["group"], []).append(any(end - 6 <= f <= end + 12 for f in fired))
    false, blamed, seconds = 0, {}, 0.0
    for stream in report["streams"]:
        seconds += len(stream["scores"]) * chunk / report["rate"]
        fired, n = wake(stream["scores"], stream["verified"])
        checks += n
        for f in fired:
            false += 1
            kind = blame(stream["pieces"], f, chunk)
            blamed[kind] = blamed.get(kind, 0) + 1
    hours = seconds / 3600
    unseen = [ok for group, oks in by_group.items() if "trained voice" not in group for ok in oks]
    near = sum(n for k, n in blamed.items() if "near miss" in k)
    near_said = sum(1 for s in report["streams"] for kind, _, _ in s["pieces"] if "near miss" in kind)
    return {
        "recall_unseen": sum(unseen) / len(unseen) if unseen else float("nan"),
        "false_accepts_per_hour": false / hours if hours else float("nan"),
        "not_near_misses_per_hour": (false - near) / hours if hours else float("nan"),
        "near_misses_accepted": [near, near_said],
        # In the streams that never say it: how often the check runs while nobody wakes it.
        "second_stage_runs_per_hour": checks / hours if hours else float("nan"),
        "recall_by_voice": {g: [round(sum(v) / len(v), 4), len(v)] for g, v in by_group.items()},
        "false_accepts_by_piece": dict(sorted(blamed.items(), key=lambda kv: -kv[1])),
        "hours": hours,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--head", type=float, nargs="+", default=[0.8], help="thresholds for the head alone")
    parser.add_argument("--floor", type=float, nargs="+", default=[0.3, 0.4])
    parser.add_argument("--weight", type=float, nargs="+", default=[0, 1, 2])
    parser.add_argument("--allowance", type=float, nargs="+", default=[2, 3, 4, 5, 6])
    parser.add_argument("--gap", type=int, default=3)
    parser.add_argument("--details", action="store_true")
    args = parser.parse_args()
    with open(args.report) as f:
        report = json.load(f)
    print(f"{len(report['phrases'])} wake phrases; window {report['window']} s; measured from {report['floor']}; "
          f"second stage median {report['verify_ms_median']:.0f} ms")
    print("head alone / floor  weight  allowance  recall(unseen)  FA/h   FA/h not near  near misses accepted  2nd stage runs/h")

    def show(label: str, r: dict) -> None:
        print(f"{label}  {r['recall_unseen']:14.3f}  {r['false_accepts_per_hour']:5.1f}  {r['not_near_misses_per_hour']:13.1f}"
              f"  {r['near_misses_accepted'][0]:>8} of {r['near_misses_accepted'][1]:<8}  {r['second_stage_runs_per_hour']:8.0f}")
        if args.details:
            print("   ", json.dumps(r["recall_by_voice"]), json.dumps(r["false_accepts_by_piece"]))

    for threshold in args.head:
        show(f"{threshold:5.2f} alone{'':23}", measure(report, lambda s, v: head_alone(s, threshold)))
    for floor in args.floor:
        if floor < report["floor"]:
            print(f"floor {floor}: below the measurement's floor {report['floor']}, skipped")
            continue
        for weight in args.weight:
            for allowance in args.allowance:
                wake = lambda s, v: checked(s, v, floor, weight, allowance, args.gap)
                show(f"{floor:5.2f}{'':7}{weight:6}  {allowance:9}", measure(report, wake))


if __name__ == "__main__":
    main()
