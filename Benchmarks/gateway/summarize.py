"""Reads the RESULT lines of one gateway run and prints the comparison table."""
import json
import sys

rows = {}
for line in open(sys.argv[1]):
    label, scenario, conns, payload = line.rstrip("\n").split(" ", 3)
    row = json.loads(payload)
    row["rps"] = row["requests"] / row["seconds"] if row["seconds"] else 0
    rows[(label, scenario, int(conns))] = row
rss = {line.split()[0]: float(line.split()[1]) for line in open(sys.argv[2])}

def get(label, scenario, conns):
    return rows.get((label, scenario, conns))

print(f"{'scenario':8} {'conns':>5} | {'direct rps':>10} {'p50 ms':>7} | {'LiteLLM rps':>11} {'+p50 ms':>8} {'+p99 ms':>8} | "
      f"{'Parley rps':>10} {'+p50 ms':>8} {'+p99 ms':>8} | {'Parley/LiteLLM rps':>18}")
for scenario in ("chat", "stream"):
    for conns in (1, 8, 32):
        direct = get("direct", scenario, conns)
        if not direct:
            continue
        line = f"{scenario:8} {conns:>5} | {direct['rps']:>10.0f} {direct['p50'] / 1000:>7.2f} | "
        cells = {}
        for label in ("litellm", "parley"):
            row = get(label, scenario, conns)
            if not row:
                cells[label] = None
                line += f"{'-':>11} {'-':>8} {'-':>8} | " if label == "litellm" else f"{'-':>10} {'-':>8} {'-':>8} | "
                continue
            cells[label] = row
            added50 = (row["p50"] - direct["p50"]) / 1000
            added99 = (row["p99"] - direct["p99"]) / 1000
            width = 11 if label == "litellm" else 10
            flag = "" if row["errors"] + row["bad_status"] == 0 else f" ({row['errors'] + row['bad_status']} failed)"
            line += f"{row['rps']:>{width}.0f} {added50:>8.2f} {added99:>8.2f}{flag} | "
        if cells["litellm"] and cells["parley"] and cells["litellm"]["rps"] > 0:
            line += f"{cells['parley']['rps'] / cells['litellm']['rps']:>17.1f}x"
        print(line)
print()
for label, megabytes in rss.items():
    print(f"idle RSS {label}: {megabytes:.0f} MB")
if "parley" in rss and "litellm" in rss:
    print(f"Parley idle RSS is {rss['parley'] / rss['litellm']:.2f}x LiteLLM's")
