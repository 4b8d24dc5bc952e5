"""The offline Writer and Critic read a run's pages in the reader's language (issue #39)."""

from __future__ import annotations

import json

import pytest

from askai_graph.evidence.results import EvidencePassage, SearchResult
from askai_graph.models.offline import ExtractiveWriter, LexicalCritic
from askai_graph.models.reviewing import ReviewRequest
from askai_graph.models.writing import DraftRequest
from askai_graph.text.terms import content_terms, reading, sentence_terms, sentences

JA_URL = "https://site.example/ja/cache/"
JA_SENTENCE = "キャッシュの有効期限は設定ファイルで変更できます。"
JA_PAGE = (
    "# キャッシュ\n\n"
    f"キャッシュを使うと、同じ質問への回答がすぐに返されます。{JA_SENTENCE}"
    "ログは毎日ローテーションされます！\n"
)
ES_URL = "https://site.example/es/cache/"
ES_SENTENCE = "Las respuestas guardadas en la caché caducan después de una hora configurable."
ES_PAGE = f"# Caché\n\n{ES_SENTENCE} Los registros se rotan cada día en el servidor principal.\n"


def ja_result() -> SearchResult:
    return SearchResult(title="キャッシュ", source_url=JA_URL, content=JA_PAGE)


def es_result() -> SearchResult:
    return SearchResult(title="Caché", source_url=ES_URL, content=ES_PAGE)


@pytest.mark.parametrize("end", ["。", "！", "？"])
def test_sentences_split_at_a_cjk_sentence_end(end: str) -> None:
    first, second = f"最初の文です{end}", "次の文です。"
    assert sentences(first + second) == [first, second]


def test_sentences_still_split_english_at_a_full_stop_before_a_capital() -> None:
    assert sentences("One sentence here. Another one there.") == ["One sentence here.", "Another one there."]


def test_reading_a_locale_analyses_text_as_its_language() -> None:
    text = "Las respuestas guardadas caducan"
    with reading("es"):
        read = content_terms(text)
    assert read == content_terms(text, "es")
    assert read != content_terms(text)


def test_sentence_terms_are_cached_per_language() -> None:
    english = sentence_terms(ES_SENTENCE)
    with reading("es"):
        spanish = sentence_terms(ES_SENTENCE)
    assert spanish[0][1] == frozenset(content_terms(ES_SENTENCE, "es"))
    assert english[0][1] == frozenset(content_terms(ES_SENTENCE))
    assert spanish != english


def test_the_writer_quotes_a_japanese_sentence_in_a_japanese_run() -> None:
    request = DraftRequest(question="キャッシュの有効期限を変更するには？", search_results=[ja_result()], locale="ja")
    draft = ExtractiveWriter().write(request)
    assert JA_SENTENCE in draft
    assert JA_URL in draft


def test_the_critic_grounds_a_spanish_draft_read_as_spanish() -> None:
    draft = f"{ES_SENTENCE} ([Caché]({ES_URL}))"
    evidence = [EvidencePassage(result=es_result(), text=ES_PAGE)]
    question = "¿Cuándo caduca una respuesta guardada en caché?"
    spanish = json.loads(
        LexicalCritic().review(ReviewRequest(question=question, draft=draft, evidence=evidence, locale="es"))
    )
    assert spanish["ungrounded_claims"] == []
    assert spanish["drift_detected"] is False
    assert spanish["answer_relevance"] >= 0.5


def test_the_critic_reads_a_japanese_answer_as_japanese() -> None:
    question = "キャッシュの有効期限を変更するには？"
    draft = ExtractiveWriter().write(DraftRequest(question=question, search_results=[ja_result()], locale="ja"))
    evidence = [EvidencePassage(result=ja_result(), text=JA_PAGE)]
    review = json.loads(
        LexicalCritic().review(ReviewRequest(question=question, draft=draft, evidence=evidence, locale="ja"))
    )
    assert review["ungrounded_claims"] == []
    assert review["drift_detected"] is False


def test_pages_all_untranslated_are_read_in_the_default_language() -> None:
    from askai_graph.nodes.writer import pages_locale
    from askai_graph.settings import Settings

    untranslated = SearchResult(title="Cache", source_url="https://site.example/c/", content="x", fallback_locale="en")
    assert pages_locale(Settings(locale="es"), [untranslated]) == "en"
    assert pages_locale(Settings(locale="es"), [untranslated, es_result()]) == "es"
    assert pages_locale(Settings(locale="es"), []) == "es"


@pytest.mark.parametrize(
    ("question", "form"),
    [
        ("¿Cómo recibo un archivo subido?", "instruction"),
        ("¿Cómo puedo probar mi app sin un servidor?", "instruction"),
        ("¿Cómo funciona la caché?", "explanation"),
        ("¿Qué es un modelo?", "explanation"),
        ("アップロードされたファイルを受け取るには？", "instruction"),
        ("キャッシュを設定する方法", "instruction"),
        ("キャッシュとは何ですか？", "explanation"),
        ("¿Cómo me conecto a una base de datos?", "instruction"),
        ("¿Qué paquete necesito instalar para leer formularios?", "instruction"),
        ("フォームを読むにはどのパッケージが必要ですか？", "instruction"),
    ],
)
def test_spanish_and_japanese_how_to_questions_ask_for_an_instruction(question: str, form: str) -> None:
    from askai_graph.rules.answer_form import question_form

    assert question_form(question) == form


ANCHORED_ES_PAGE = (
    "# Caché\n\nLa caché de la app guarda en la memoria las respuestas de la API en el servidor.\n\n"
    "## Caducidad\n\nCada entrada caduca a los diez minutos.\n"
)


def test_a_spanish_citing_sentence_is_anchored_to_the_section_it_rests_on_not_the_one_sharing_its_stop_words() -> None:
    from askai_graph.evidence.results import HeadingAnchor
    from askai_graph.nodes.validation import validate
    from askai_graph.settings import Settings

    anchors = (HeadingAnchor(heading="Caché", id="cache"), HeadingAnchor(heading="Caducidad", id="caducidad"))
    page = SearchResult(title="Caché", source_url=ES_URL, content=ANCHORED_ES_PAGE, anchors=anchors)
    draft = f"Las entradas de la caché caducan en diez minutos ([Caché]({ES_URL}))."
    state = {"question": "¿Cuándo caducan las entradas?", "draft": draft, "search_results": [page]}
    [citation] = validate(state, Settings(locale="es"))["citations"]  # type: ignore[arg-type]
    assert (citation.section, citation.anchor_url) == ("Caducidad", f"{ES_URL}#caducidad")
    assert citation.quote == "Cada entrada caduca a los diez minutos."


@pytest.mark.parametrize(
    ("question", "form"),
    [
        ("¿Por qué la caché guarda las respuestas?", "reason"),
        ("なぜキャッシュは回答を保存するのですか？", "reason"),
        ("¿Cuántos workers arranca el servidor por defecto?", "value"),
        ("¿Cuál es el límite de tamaño de un archivo subido?", "value"),
        ("キャッシュの有効期限のデフォルト値は？", "value"),
        ("タイムアウトは何秒ですか？", "value"),
    ],
)
def test_spanish_and_japanese_why_and_value_questions_ask_for_their_form(question: str, form: str) -> None:
    from askai_graph.rules.answer_form import question_form

    assert question_form(question) == form


@pytest.mark.parametrize(
    ("locale", "check", "text"),
    [
        ("es", "reason", "Las respuestas se guardan porque calcularlas otra vez es lento."),
        ("ja", "reason", "計算し直すと遅いため、回答を保存します。"),
        ("es", "value", "El servidor arranca dos workers."),
        ("ja", "value", "タイムアウトは30秒です。"),
    ],
)
def test_a_reason_or_a_value_is_read_in_the_pages_language(locale: str, check: str, text: str) -> None:
    from askai_graph.rules.answer_form import has_reason, has_value

    with reading(locale):
        assert (has_reason if check == "reason" else has_value)(text)


def test_a_spanish_why_question_answered_without_a_reason_fails_with_the_reason_as_its_gap() -> None:
    question = "¿Por qué las respuestas guardadas en la caché caducan?"
    evidence = [EvidencePassage(result=es_result(), text=ES_PAGE)]
    draft = f"Las respuestas guardadas en la caché caducan después de una hora configurable ([Caché]({ES_URL}))."
    review = json.loads(
        LexicalCritic().review(ReviewRequest(question=question, draft=draft, evidence=evidence, locale="es"))
    )
    assert review["intent_alignment"] < 0.5 and "reason" in review["gaps"]
