"""A title section that only announces its page's steps hands the answer to the step that has them."""

from __future__ import annotations

from askai_graph.models.offline.writer import NOTHING_FOUND, ExtractiveWriter
from askai_graph.models.writing import DraftRequest
from askai_graph.nodes.research import to_search_results
from tests.fakes import post

PAGE = """# Translate your handbook

Let's translate `guide/intro.md` to Welsh.

## Copy the page

Copy the `guide/intro.md` file to the `lang/cy` folder:

```bash
mkdir -p lang/cy/guide && cp guide/intro.md lang/cy/guide/intro.md
```

## Serve the Welsh handbook

Serve the handbook in the Welsh locale:

```bash
handbook serve --locale cy
```
"""


def draft_for(question: str) -> str:
    found = to_search_results([post(1, PAGE)], top_k=10)
    return ExtractiveWriter().write(DraftRequest(question=question, search_results=found))


def test_a_title_section_with_nothing_to_quote_passes_the_answer_to_a_step_that_has_code() -> None:
    draft = draft_for("How do I translate my handbook to Welsh?")
    assert draft != NOTHING_FOUND
    assert "--locale cy" in draft or "lang/cy" in draft


def test_a_question_no_section_answers_is_still_not_covered() -> None:
    assert draft_for("How do I bake sourdough bread?") == NOTHING_FOUND
