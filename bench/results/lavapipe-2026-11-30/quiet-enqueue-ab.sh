#!/bin/bash
# A/B of quiet-enqueue.patch: build (this tree) against build-nap (the tree with the patch
# applied), 5 processes each, alternating; bench/hostcost, Hesper's added time per case and
# its own submit hook time per submission.
cd "$(git rev-parse --show-toplevel)" || exit 1
for i in 1 2 3 4 5; do
  for b in build build-nap; do
    VK_ADD_LAYER_PATH=$PWD/$b/shim HESPER_REPORT=json:/tmp/ab-$b.json $b/bench/hostcost --rounds 100 --json 2>/dev/null > /tmp/ab-$b.out
    python3 -c '
import json, sys
b = sys.argv[1]
h = json.load(open(sys.argv[2]))["hesper"]
out = []
for line in open(sys.argv[3]):
    r = json.loads(line)
    if r["case"] == "record": continue
    out.append("%s %+.2f" % (r["case"], r["added"]))
print(b, " ".join(out), "| own submit hook us/submission %.2f" % (h["submit_hook_ns"] / json.load(open(sys.argv[2]))["submits"]["count"] / 1e3))' $b /tmp/ab-$b.json /tmp/ab-$b.out
  done
done
