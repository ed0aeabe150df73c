"""Blind hand-reading of Reuters relation claims: draw, mix, then score.

Usage::

    # draw: K claims of KIND from each run's relations (never-read pairs only), mixed
    PYTHONPATH=src:bench .venv/bin/python bench/blind_sample.py draw --skip S --n N \
        --kind same_story --k 50 --seed SEED --out DIR main=main.jsonl branch=branch.jsonl
    # the reader sees only DIR/openings.txt and writes DIR/verdicts.tsv:
    #   item<TAB>right|wrong[<TAB>borderline]
    PYTHONPATH=src:bench .venv/bin/python bench/blind_sample.py score DIR

``draw`` reads each run's relations (``bench/reuters_typing.py --out``: one JSON object per
line with ``a``, ``b``, ``relation``), leaves out every pair already read by hand (the
``bench/reuters_*_read.tsv`` files, or ``--exclude`` files of the same columns), draws K of
the rest of KIND per run with one seeded generator, and writes the union in a shuffled order:
``openings.txt`` (item number, both articles' dates and openings, nothing about which run
drew the pair or any score) and ``key.tsv`` (item, a, b, the runs that drew it, and the
relation each run gives the pair). ``score`` joins the reader's verdicts to the key: per run,
right / read of the pairs it drew, and the claims one run makes that the other does not.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from pathlib import Path

from common import read_verdicts
from eval_duplicates import load

READ_FILES = ("reuters_same_story_read.tsv", "reuters_spun_read.tsv")


def relations(path: Path) -> dict[frozenset[str], str]:
    """Pair -> relation of one run's relations file."""
    out: dict[frozenset[str], str] = {}
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                out[frozenset((r["a"], r["b"]))] = r["relation"]
            except (json.JSONDecodeError, KeyError) as e:
                raise SystemExit(f"{path}:{n}: not a relation line ({e})") from e
    return out


def draw(args: argparse.Namespace) -> int:
    runs: dict[str, dict[frozenset[str], str]] = {}
    for spec in args.runs:
        tag, _, path = spec.partition("=")
        if not path:
            raise SystemExit(f"run {spec!r}: expected TAG=RELATIONS.jsonl")
        runs[tag] = relations(Path(path))
    here = Path(__file__).parent
    excl = [here / f for f in READ_FILES] + [Path(p) for p in args.exclude]
    seen = {frozenset(p) for f in excl if f.exists() for p in read_verdicts(f)}
    rng = random.Random(args.seed)
    drawn: dict[frozenset[str], list[str]] = {}
    for tag, rels in runs.items():
        pool = sorted(
            (p for p, rel in rels.items() if rel == args.kind and p not in seen), key=sorted
        )
        for p in rng.sample(pool, min(args.k, len(pool))):
            drawn.setdefault(p, []).append(tag)
        print(
            f"{tag}: {sum(r == args.kind for r in rels.values())} {args.kind}, "
            f"{len(pool)} never read, {min(args.k, len(pool))} drawn"
        )
    items = sorted(drawn, key=sorted)
    rng.shuffle(items)
    arts = {a.id: a for a in load("reuters", args.n, skip=args.skip, dates=True)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with (
        (out / "openings.txt").open("w", encoding="utf-8") as fh,
        (out / "key.tsv").open("w", encoding="utf-8") as kh,
    ):
        kh.write("item\ta\tb\tdrawn_by\t" + "\t".join(runs) + "\n")
        for i, pair in enumerate(items, 1):
            a, b = sorted(pair)
            fh.write(f"=== item {i}\n")
            for side in (a, b):
                art = arts.get(side)
                if art is None:
                    raise SystemExit(
                        f"{side}: not among Reuters articles {args.skip + 1}-"
                        f"{args.skip + args.n} (check --skip / --n)"
                    )
                opening = " ".join(art.text[: args.chars].split())
                fh.write(f"[{side}] date {art.published_at}\n{opening}\n\n")
            rels = [runs[t].get(pair, "-") for t in runs]
            kh.write(f"{i}\t{a}\t{b}\t{','.join(drawn[pair])}\t" + "\t".join(rels) + "\n")
    print(f"{len(items)} items -> {out}/openings.txt (reader), {out}/key.tsv (keep away)")
    return 0


def score(args: argparse.Namespace) -> int:
    d = Path(args.dir)
    verdict: dict[str, tuple[str, bool]] = {}
    for ln in (d / "verdicts.tsv").read_text(encoding="utf-8").splitlines():
        parts = ln.strip().split("\t")
        if len(parts) < 2 or not parts[0].isdigit():
            continue
        v = parts[1].strip().lower()
        if v not in ("right", "wrong"):
            raise SystemExit(f"verdicts.tsv item {parts[0]}: {parts[1]!r} is not right/wrong")
        verdict[parts[0]] = (v, len(parts) > 2 and bool(parts[2].strip()))
    key = list(csv.DictReader((d / "key.tsv").open(encoding="utf-8"), delimiter="\t"))
    tags = [c for c in key[0] if c not in ("item", "a", "b", "drawn_by")]
    missing = [r["item"] for r in key if r["item"] not in verdict]
    if missing:
        print(f"not read (counted wrong): items {', '.join(missing)}")
    for tag in tags:
        rows = [r for r in key if tag in r["drawn_by"].split(",")]
        right = sum(verdict.get(r["item"], ("wrong", False))[0] == "right" for r in rows)
        border = sum(verdict.get(r["item"], ("", False))[1] for r in rows)
        print(
            f"{tag}: {right} / {len(rows)} right ({right / max(1, len(rows)):.3f}), "
            f"{border} borderline"
        )
    if len(tags) == 2:
        kind = args.kind
        for t, o in (tags, tags[::-1]):
            only = [r for r in key if r[t] == kind and r[o] != kind]
            right = sum(verdict.get(r["item"], ("wrong", False))[0] == "right" for r in only)
            print(f"read claims {t} makes and {o} does not: {len(only)} ({right} right)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw")
    d.add_argument("runs", nargs="+", help="TAG=RELATIONS.jsonl, one per run")
    d.add_argument("--skip", type=int, required=True)
    d.add_argument("--n", type=int, required=True)
    d.add_argument("--kind", default="same_story")
    d.add_argument("--k", type=int, default=50)
    d.add_argument("--seed", type=int, required=True)
    d.add_argument("--chars", type=int, default=700)
    d.add_argument("--exclude", nargs="*", default=[], help="more read-pair TSVs")
    d.add_argument("--out", required=True)
    s = sub.add_parser("score")
    s.add_argument("dir")
    s.add_argument("--kind", default="same_story")
    args = ap.parse_args()
    return draw(args) if args.cmd == "draw" else score(args)


if __name__ == "__main__":
    sys.exit(main())
