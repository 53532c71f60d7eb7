"""Scores `run`'s lines (language, reference, JSON asked, JSON auto): WER, CER, detection."""
import json
import sys
import unicodedata


def words(text):
    text = unicodedata.normalize("NFC", text.lower())
    return "".join(c if c.isalnum() or c == "'" else " " for c in text).split()


def distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[len(b)]


totals = {}
for line in sys.stdin:
    lang, reference, asked, auto = line.rstrip("\n").split("\t")
    asked, auto = json.loads(asked), json.loads(auto)
    t = totals.setdefault(lang, {"words": 0, "chars": 0, "we": 0, "ce": 0, "we_auto": 0, "right": 0, "n": 0, "ms": [], "model": asked["provider"]})
    ref_words, ref_chars = words(reference), " ".join(words(reference))
    t["words"] += len(ref_words)
    t["chars"] += len(ref_chars)
    t["we"] += distance(words(asked["text"]), ref_words)
    t["ce"] += distance(" ".join(words(asked["text"])), ref_chars)
    t["we_auto"] += distance(words(auto["text"]), ref_words)
    t["right"] += auto.get("language") == lang
    t["n"] += 1
    t["ms"].append(asked["elapsed_ms"])
    print(f"{lang}  {reference!r} -> {asked['text']!r} | auto [{auto.get('language')}] {auto['text']!r}", file=sys.stderr)

print("| language | model (language given) | WER | CER | WER on auto | detected right | p50 ms |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for lang, t in totals.items():
    ms = sorted(t["ms"])[len(t["ms"]) // 2]
    print(f"| {lang} | {t['model']} | {t['we'] / t['words']:.1%} | {t['ce'] / t['chars']:.1%} | {t['we_auto'] / t['words']:.1%} "
          f"| {t['right']}/{t['n']} | {ms:.0f} |")
