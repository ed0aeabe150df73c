"""Stock lines: a sentence repeated across many articles of the pile (a credit line, a
standard footer) is boilerplate for alignment evidence, not reuse; exactly so under
incremental add and remove."""

from __future__ import annotations

import numpy as np

import unspin
from unspin.align import AlignParams, stock_lines
from unspin.corpus import CorpusStats, SupportLocal, SupportView, line_hashes, line_key
from unspin.fingerprint import prepare
from unspin.model import REUSE_RELATIONS, Article
from unspin.output import read_tables
from unspin.pipeline import Config

CREDIT = (
    "Rory Vance is technology correspondent for The Tideline, a Harbour Gazette and "
    "Port Ardent Radio co-production."
)
BODIES = [
    "The council voted on Monday to close the old swimming pool at Gull Point. "
    "Repairs to the roof would have cost more than a new building, officers said. "
    "A new pool is planned for the leisure centre by the end of next year.",
    "A startup in Port Ardent has built a drone that counts seabirds on the cliffs. "
    "The company says its cameras can tell a puffin from a razorbill at sixty metres. "
    "Wildlife groups will test the machine on Gull Island over the summer.",
    "Broadband speeds in rural Marrow Bay doubled last year after new fibre was laid. "
    "The regulator's survey found that one home in ten still cannot stream video. "
    "Engineers expect to finish the last villages before the winter storms arrive.",
    "The Harbour Museum will open a gallery of old ship radios in the spring. "
    "Volunteers spent three winters restoring the valves and the wooden cabinets. "
    "Visitors will be able to listen to recordings of coastguard calls from 1962.",
    "Fishermen in Port Ardent are trying an app that records every catch at sea. "
    "The data will help scientists estimate how many young cod survive each year. "
    "The trial is paid for by the regional fisheries board for two seasons.",
    "A robot lawnmower built by pupils at Harbourside Primary won a national prize. "
    "The machine finds its way round flower beds with a camera and a cheap chip. "
    "The school will spend the prize money on laptops for its computing club.",
]


def _article(k: int) -> Article:
    return Article(id=f"col{k}", text=f"Column {k}\n\n{BODIES[k]}\n\n{CREDIT}")


def _doc(doc_id: str, sentences: list[str]):
    return prepare(Article(id=doc_id, text="\n\n".join(sentences)))


class _Pile:
    """A pile in which every line is held by ``n`` articles."""

    def __init__(self, n: int) -> None:
        self.n = n

    def lines_in_at_least(self, hashes: np.ndarray, n: int) -> np.ndarray:
        return np.full(len(hashes), self.n >= n)


def _counts(n: int) -> _Pile:
    return _Pile(n)


def test_line_key_ignores_case_spacing_and_final_punctuation() -> None:
    assert line_key("Rory  Vance is a WRITER.") == line_key("rory vance is a writer")


def test_a_frequent_line_in_different_surroundings_is_marked_in_both_copies() -> None:
    a = _doc("a", ["Pool to close", BODIES[0], CREDIT])
    b = _doc("b", ["Drone counts birds", BODIES[1], CREDIT])
    p = AlignParams()
    ma, mb = stock_lines(a, b, _counts(p.stock_min_docs), p)
    credit_a = [s.index for s in ma.sentences if s.boilerplate]
    credit_b = [s.index for s in mb.sentences if s.boilerplate]
    assert [ma.sentences[i].text for i in credit_a] == [CREDIT]
    assert [mb.sentences[i].text for i in credit_b] == [CREDIT]
    assert not any(s.boilerplate for s in a.sentences + b.sentences)  # inputs unchanged
    # below the count it is a shared line like any other
    ma, mb = stock_lines(a, b, _counts(p.stock_min_docs - 1), p)
    assert ma is a and mb is b
    # without a pile nothing is marked
    assert stock_lines(a, b, None, p) == (a, b)


def test_a_block_carried_with_its_neighbours_is_not_a_stock_line() -> None:
    """Copies (however many) hold a line in the same surroundings: it stays evidence."""
    p = AlignParams()
    a = _doc("a", ["Pool to close", BODIES[0], CREDIT])
    b = _doc("b", ["Council shuts pool", BODIES[0], "By a staff reporter, age seven."])
    ma, mb = stock_lines(a, b, _counts(50), p)
    assert ma is a and mb is b
    # a line that is the whole of one text has no surroundings to tell
    c = _doc("c", [CREDIT])
    assert stock_lines(a, c, _counts(50), p) == (a, c)


def test_support_view_counts_lines_over_the_pile_and_stays_exact_on_add_remove() -> None:
    docs = [prepare(_article(k)) for k in range(6)]
    locs = [SupportLocal(d) for d in docs]
    credit = line_hashes(docs[0])[-1:]
    full = CorpusStats(locs)
    assert SupportView(full, locs[:2]).line_docs(credit).tolist() == [6]
    grown = CorpusStats(locs[:4])
    grown.add(locs[4])
    grown.add(locs[5])
    assert SupportView(grown, locs[:2]).line_docs(credit).tolist() == [6]
    grown.remove(locs[5])
    assert SupportView(grown, locs[:2]).line_docs(credit).tolist() == [5]
    assert np.array_equal(grown.line_keys, CorpusStats(locs[:5]).line_keys)
    assert np.array_equal(grown.line_df, CorpusStats(locs[:5]).line_df)


def _pair(out, a: str, b: str) -> str | None:
    for r in read_tables(out)["relations"]:
        if {r["a"], r["b"]} == {a, b}:
            return r["relation"]
    return None


def test_credit_line_stops_being_evidence_once_frequent_and_incremental_equals_full(
    tmp_path,
) -> None:
    cfg = Config(embedder="hashing")
    n = AlignParams().stock_min_docs
    arts = [_article(k) for k in range(n)]
    out = tmp_path / "inc"
    # one article short of a stock line: the shared credit is evidence like any sentence
    unspin.scan(arts[: n - 1], out=out, config=cfg)
    before = _pair(out, "col0", "col1")
    assert before == "partial"  # one long sentence reused: partial on its own
    # the n-th article makes it a stock line: pairs among the earlier ones change too
    unspin.add([arts[n - 1]], out=out, config=cfg)
    full = unspin.scan(arts, out=tmp_path / "full", config=cfg, store=False)
    for t in ("relations", "stories", "changes"):
        assert read_tables(out)[t] == read_tables(tmp_path / "full")[t], t
    assert not any(r.relation in REUSE_RELATIONS for r in full.relations)
    # and back: removing it makes the earlier pairs what they were
    unspin.remove([arts[n - 1].id], out=out, config=cfg)
    assert _pair(out, "col0", "col1") == before
    unspin.scan(arts[: n - 1], out=tmp_path / "full2", config=cfg, store=False)
    for t in ("relations", "stories", "changes"):
        assert read_tables(out)[t] == read_tables(tmp_path / "full2")[t], t


def test_syndicated_copies_stay_copies_however_many() -> None:
    copies = AlignParams().stock_min_docs + 1  # every line of the story is that frequent
    text = "\n\n".join(BODIES[:3])
    arts = [
        Article(id=f"syn{k}", text=f"Outlet {k} headline number {k}\n\n{text}\n\nCredit line {k}.")
        for k in range(copies)
    ]
    result = unspin.scan(arts, config=Config(embedder="hashing"))
    kinds = {r.relation for r in result.relations}
    assert len(result.relations) == copies * (copies - 1) // 2
    assert kinds <= {"copy", "duplicate"}, kinds
