#!/usr/bin/python3
"""Make a CCD-format file of at least TARGET_MB megabytes (10^6 bytes) by repeating the blocks of
a CCD excerpt: copy 0 keeps the real ids, copies 1.. rename every block to a new 5-character id
("Z" + 4 base-36 digits, skipping ids of the excerpt) in its data_ line, its _chem_comp.id /
single-row comp_id items and the first (comp_id) column of its loop rows, so that every block
parses as its own component. Blocks are written in shuffled order of the copies (a fixed seed)
so that the index does not see them sorted.
usage: ccd_make_big.py EXCERPT.cif OUT.cif TARGET_MB"""
import random, re, sys

src, out, target_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
text = open(src, encoding="utf-8").read()
starts = [m.start() for m in re.finditer(r"(?m)^data_", text)]
blocks = [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]
ids = [b[5:b.index("\n")].strip() for b in blocks]
taken = set(ids)
need = int(target_mb * 1e6)
copies = need // len(text) + 1
digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def new_ids():
    n = 0
    while True:
        s, k = "", n
        for _ in range(4):
            s = digits[k % 36] + s
            k //= 36
        n += 1
        if "Z" + s not in taken:
            yield "Z" + s


gen = new_ids()


def rename(block, old, new):
    lines = block.split("\n")
    lines[0] = "data_" + new
    for i in range(1, len(lines)):
        ln = lines[i]
        if ln.startswith(old + " "):
            lines[i] = new + ln[len(old):]
        elif ln.startswith("_") and (ln.startswith("_chem_comp.id ") or ".comp_id " in ln):
            parts = ln.split()
            if len(parts) == 2 and parts[1] == old:
                lines[i] = ln[: ln.rindex(old)] + new
    return "\n".join(lines)


order = list(range(copies))
random.Random(4).shuffle(order)
written = 0
with open(out, "w", encoding="utf-8") as f:
    for c in order:
        for b, old in zip(blocks, ids):
            s = b if c == 0 else rename(b, old, next(gen))
            f.write(s)
            written += len(s.encode())
print(f"{out}: {written} bytes, {copies} copies x {len(blocks)} blocks = {copies * len(blocks)} blocks")
