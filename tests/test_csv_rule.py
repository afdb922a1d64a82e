"""One CSV rule for every CSV webnb writes (issue 35, deliver 6): the engine's ``neutralise``, tested with OWASP's
CSV-injection list and its variants (leading white space, tab, CR, LF, the full-width forms) on every download:
the text lesson's six, the table lesson's five and a class question's answers."""
from __future__ import annotations

import csv
import io
import json

from tests.conftest import browser_from
from tests.test_class_in_the_room import T0, set_clock
from tests.test_class_questions import SLIDE, answer, ask, lecture_on
from tests.test_export import OWASP, VARIANTS, is_formula

HOSTILE = OWASP + VARIANTS


def assert_no_formula(response) -> list[list[str]]:
    assert response.status_code == 200 and response.mimetype == "text/csv", response.get_data(as_text=True)[:300]
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True), newline="")))
    for row in rows:
        for cell in row:
            if is_formula(cell):
                float(cell)  # only a number ("-0.5", "-inf") may start so: raises ValueError otherwise
    return rows


def uploaded(client, body: str, filename: str) -> str:
    response = client.post("/corpora/upload", data={"file": (io.BytesIO(body.encode()), filename)},
                           content_type="multipart/form-data")
    assert response.status_code in (302, 303), response.get_data(as_text=True)[:500]
    return response.headers["Location"].split("?")[0].rstrip("/").rsplit("/", 1)[1]


def test_every_text_download_neutralises_the_owasp_list_and_its_variants(client):
    # Each hostile string is a label (of two documents) and, split on white space, a word of every document.
    lines = [json.dumps({"label": label, "text": f"{label} match {n}", "id": f"{label}{n}"})
             for label in HOSTILE for n in range(2)]
    corpus_id = uploaded(client, "\n".join(lines), "hostile.jsonl")
    query = {"tokens": "whitespace", "model": "multinomial", "alpha": "1", "test": "training"}
    cells = set()
    for name in ("matrix", "parameters", "priors", "evaluation", "confusion", "predictions"):
        for row in assert_no_formula(client.get(f"/corpora/{corpus_id}/export/{name}.csv", query_string=query)):
            cells.update(row)
    # The hostile strings did reach the downloads, quoted (the reader may have trimmed a label's white space).
    assert {"'=1+1", "'+1+1", "'\uff1d1+1"} <= {cell.replace(" ", "") for cell in cells}


def test_every_table_download_neutralises_them(client):
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["x", "label"])
    writer.writerows([n, label] for n, label in enumerate(HOSTILE * 2))
    corpus_id = uploaded(client, out.getvalue(), "hostile.csv")
    for name in ("rows", "parameters", "evaluation", "confusion", "predictions"):
        assert_no_formula(client.get(f"/corpora/{corpus_id}/gaussian/{name}.csv", query_string={"test": "training"}))


def test_a_class_questions_answers_neutralise_them(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    number = ask(lecturer, lecture.code, "challenge", address=SLIDE, challenge="class:positive")
    students = [student] + [browser_from(app) for _ in HOSTILE[1:]]
    for browser, text in zip(students, HOSTILE, strict=True):
        if browser is not student:
            browser.get(f"/join/{lecture.code}")
        answer(browser, lecture.code, number, text)
    rows = assert_no_formula(lecturer.get(f"/classes/{lecture.code}/questions/{number}/answers.csv"))
    assert sorted(row[1] for row in rows[1:]) == sorted("'" + text for text in HOSTILE)
