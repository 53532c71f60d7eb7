#!/usr/bin/env python3
"""Self-test of scripts/wake_word/cascade.py, the replay behind the wake word's figures: where
the head proposes (its peaks), when the check confirms, and which piece a false accept is blamed
on. Run by scripts/test (plain python3, no packages)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cascade  # noqa: E402

CHUNK = 1280  # 80 ms at 16 kHz, as the reports have it
failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)


# Peaks: the first chunk lower than the run's best, with the best; or the run's fifth chunk.
expect(cascade.peaks([0.1, 0.5, 0.9, 0.7, 0.2], 0.4) == [(3, 0.9)], "a peak fires on the first lower chunk")
expect(cascade.peaks([0.5, 0.6, 0.7, 0.8, 0.9, 0.95], 0.4) == [(4, 0.8)], "a long rise fires at its fifth chunk")
expect(cascade.peaks([0.1, 0.3, 0.2], 0.4) == [], "nothing from below the floor")
expect([i for i, _ in cascade.peaks([0.5, 0.3, 0.1, 0.6, 0.2], 0.4)] == [1, 4], "two runs, two peaks")

# The check: confirms when shortfall - weight * logit(p) <= allowance; 2 s of quiet after.
scores = [0.0, 0.9, 0.1] + [0.0] * 10 + [0.9, 0.1]
verified = {"2": [-5.0, 6.0], "14": [-5.0, 6.0]}
fired, checks = cascade.checked(scores, verified, 0.4, 1.0, 5.0, 3)
expect(fired == [2], f"a confident peak (logit 2.2) lets a shortfall of 6 through, once in 2 s: {fired}")
expect(checks == 1, f"the second peak falls in the quiet and is not checked: {checks}")
fired, _ = cascade.checked(scores, verified, 0.4, 0.0, 5.0, 3)
expect(fired == [], "without the score's weight a shortfall of 6 is refused")
fired, _ = cascade.checked([0.0, 0.9, 0.1], {"1": [-5.0, 1.0]}, 0.4, 1.0, 5.0, 3)
expect(fired == [2], "the chunk before stands in for a chunk the measurement did not check")

# Blame: the piece the detection would be credited to as a phrase, else the last begun.
pieces = [("sentence", 0, 40000), ("silence", 40000, 52640), ("near miss: hey Pearly", 52640, 63200),
          ("silence", 63200, 68000), ("noise", 68000, 134000)]
# Fired 0.45 s after the near miss ended, 0.15 s into the noise: the near miss's.
fired_at = (63200 + 7200) // CHUNK
expect(cascade.blame(pieces, fired_at, CHUNK) == "near miss: hey Pearly", "a peak just after a near miss is the near miss's")
expect(cascade.blame(pieces, 100000 // CHUNK, CHUNK) == "noise", "well inside a piece, that piece")
expect(cascade.blame(pieces, 20000 // CHUNK, CHUNK) == "sentence", "inside the first piece")
expect(cascade.blame([("silence", 0, 16000)], 5, CHUNK) == "silence", "in silence alone, silence")

if failures:
    print("test_cascade: " + "; ".join(failures))
    sys.exit(1)
print("test_cascade: all checks passed")
