"""Feedback comments are stored NFKC-normalised, and the CSV export reads compatibility forms of a formula sign."""

from __future__ import annotations

import csv
import io
import json

import pytest

from askai_graph import Settings
from askai_graph.server.dashboard.admin_pages import questions_csv
from askai_graph.server.guards.request import parse_json
from askai_graph.server.routes.bodies import FeedbackBody
from tests.test_runlog_store import run

RUN_ID = "6f1c1c9e-3d1a-4b7e-9a43-2f1d3c4b5a69"
FULLWIDTH = ["\uff0bcmd|' /C calc'!A0", "\uff1dHYPERLINK(\"https://evil.example\")", "\uff20SUM(1)", "\uff0d1+1"]


@pytest.mark.parametrize("comment", FULLWIDTH)
def test_a_comment_is_stored_nfkc_normalised(settings: Settings, comment: str) -> None:
    body = json.dumps({"run_id": RUN_ID, "rating": "down", "comment": comment}, ensure_ascii=False)
    rated = parse_json(body.encode(), FeedbackBody, settings)
    assert rated.comment is not None and rated.comment[0] in "+=@-"


@pytest.mark.parametrize("comment", FULLWIDTH)
def test_the_csv_export_defuses_a_fullwidth_formula_sign(comment: str) -> None:
    header, row = csv.reader(io.StringIO(questions_csv([run("How do I tune BM25?", rating="down", comment=comment)])))
    assert row[header.index("comment")] == f"'{comment}"
