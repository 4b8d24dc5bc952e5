"""Each language's words meet their own forms: Snowball stems per locale, CJK as character bigrams.

Over the MkDocs fixture of ``tests/data/versions`` (English, with Spanish and Japanese
translations of its install page).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from askai_graph import load_corpus
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph.text.terms import content_terms

MKDOCS = Path(__file__).parent / "data" / "versions" / "mkdocs" / "docs" / "en" / "docs"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> BM25Retriever:
    return BM25Retriever(corpus=load_corpus(MKDOCS), cache_dir=tmp_path_factory.mktemp("bm25"))


def test_spanish_words_meet_their_other_forms_with_the_spanish_stemmer() -> None:
    assert content_terms("validaciones", "es") == content_terms("validación", "es") != []
    assert content_terms("instalo", "es") == content_terms("Instala", "es")


def test_spanish_stop_words_are_not_terms() -> None:
    assert content_terms("la longitud de un parámetro", "es") == content_terms("longitud parámetro", "es")


def test_japanese_text_is_read_as_character_bigrams() -> None:
    assert content_terms("最大長", "ja") == ["最大", "大長"]
    assert content_terms("最大長") == ["最大", "大長"]  # whatever the reader's language: no word is lost


def test_english_terms_are_unchanged_by_a_locale_of_english() -> None:
    assert content_terms("How do I cache answers?", "en-US") == content_terms("How do I cache answers?")


def test_a_spanish_question_finds_the_spanish_page_in_another_form_of_its_words(retriever: BM25Retriever) -> None:
    found = retriever.invoke("¿Cómo instalo Lumen?", locale="es")
    assert found[0].metadata["source_url"] == "https://lumen.example/es/install/"


def test_a_japanese_question_finds_the_japanese_page(retriever: BM25Retriever) -> None:
    found = retriever.invoke("インストールするには？", locale="ja")
    assert [d.metadata["source_url"] for d in found] == ["https://lumen.example/ja/install/"]


@pytest.mark.parametrize("locale", ["es", "ja", "de"])
def test_a_pages_token_ids_are_its_content_terms_in_its_language(locale: str) -> None:
    from askai_graph.retrieval.bm25 import Vocabulary

    text = "Instala Lumen con pip: las validaciones de la configuración. インストールします。 Installieren Sie es"
    cached, plain = Vocabulary(), Vocabulary()
    assert cached.encode_text(text, locale).tolist() == plain.encode(content_terms(text, locale)).tolist()
    assert cached.encode_text(text, locale).tolist() == plain.encode(content_terms(text, locale)).tolist()  # cached
