"""The Gaussian Bayes'-rule slides of a digits-sized table (10 classes, 64 features; issue 24, part 3): each step's
condensed table shows the classes with the largest ℓ_k and the features that tell the first two apart most, says
how many more there are, and writes every number from the same record as the JSON twin (its ``slide`` part names
the rows shown). A table that fits (iris) is shown whole. Read through the test client."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import soup_of

from webnb.engine.gaussian.table import NumericTable
from webnb.lesson.formatting import probability, real

STEPS = ("densities", "product", "normalise", "underflow", "logspace", "zero-width")


def text_of(element) -> str:
    return " ".join(element.get_text(" ", strip=True).split())


@pytest.fixture()
def digits(app) -> str:
    """scikit-learn's bundled handwritten digits (no download) as a stored table of numbers; its id."""
    from sklearn.datasets import load_digits

    data = load_digits()
    table = NumericTable(tuple(data.feature_names), np.asarray(data.data, dtype=np.float64),
                         tuple(f"digit {k}" for k in data.target), tuple(map(str, range(len(data.target)))))
    return app.extensions["webnb"]["catalog"].add(table, name="Handwritten digits", source="test")


def step_slide(client, corpus: str, step: str):
    """The step's slide (its .step element) and the JSON twin of the same address."""
    address = f"/corpora/{corpus}/gaussian/inference?step={step}&presenter=1"
    page = soup_of(client.get(address))
    twin = client.get(address + "&format=json")
    assert twin.status_code == 200
    return page.find("div", id=f"step-{step}"), twin.get_json()


def expected_rows(explanation: dict) -> tuple[list[str], list[str]]:
    """From the twin's explanation alone: the three classes with the largest ℓ_k, and the four features whose
    log-densities differ most between the first two."""
    classes = sorted(explanation["classes"], key=lambda c: -c["log_joint"])[:3]
    first, second = (c["features"] for c in classes[:2])

    def gap(j: int) -> float:
        return abs(first[j]["log_density"] - second[j]["log_density"])

    features = sorted(range(len(first)), key=lambda j: -gap(j))[:4]
    return [c["class"] for c in classes], [first[j]["feature"] for j in features]


@pytest.mark.slow  # about a second: the digits table's slides
def test_a_digits_slide_names_the_rows_it_shows_and_how_many_more(client, digits):
    _, twin = step_slide(client, digits, "densities")
    explanation = twin["explanation"]
    assert all(math.isfinite(c["log_joint"]) for c in explanation["classes"])
    classes, features = expected_rows(explanation)
    assert twin["slide"] == {"classes": classes, "features": features, "more_classes": 7, "more_features": 60}
    # The decided class leads.
    assert classes[0] == explanation["decision"]


@pytest.mark.slow  # every step of the digits table: over a second
def test_every_digits_step_slide_shows_the_chosen_rows_with_the_twins_numbers(client, digits):
    for step in STEPS:
        slide, twin = step_slide(client, digits, step)
        assert slide is not None, step
        shown = twin["slide"]
        by_label = {c["class"]: c for c in twin["explanation"]["classes"]}
        if step == "densities" or step == "logspace":
            table = slide.find("table", class_="condensed")
            heads = [text_of(th) for th in table.select("thead th")[1:]]
            assert heads == shown["classes"], step
            rows = [tr for tr in table.select("tbody tr") if tr.find("td", class_="num")]
            for feature, tr in zip(shown["features"], rows, strict=False):
                assert text_of(tr.th).startswith(f"{feature} = "), step
                j = [f["feature"] for f in by_label[shown["classes"][0]]["features"]].index(feature)
                key, places = ("density", 4) if step == "densities" else ("log_density", 6)
                cells = [text_of(td) for td in tr.find_all("td")]
                assert [cell.split(" ")[0] if step == "densities" else cell for cell in cells] == [
                    real(by_label[label]["features"][j][key], places).split(" ")[0] if step == "densities"
                    else real(by_label[label]["features"][j][key], places) for label in shown["classes"]], step
            if step == "densities":
                assert text_of(table.find("tr", class_="more-row")) == "+ 60 more features · + 7 more classes"
                charts = slide.select(".density-grid.across:not(.more) figcaption")
                assert [text_of(c) for c in charts] == shown["features"][:2]
            else:
                posteriors = [text_of(td) for td in table.find("th", string="P(k | x)").parent.find_all("td")]
                assert posteriors == [probability(by_label[label]["posterior"]) for label in shown["classes"]]
                assert "+ 60 more features" in text_of(table) and "+ 7 more classes" in text_of(table)
        elif step in ("product", "normalise", "underflow"):
            table = slide.find("table", class_="condensed")
            labels = [text_of(tr.th) for tr in table.select("tbody tr") if tr.find("td")]
            assert labels == shown["classes"], step
            if step == "product":
                for tr in table.select("tbody tr"):
                    if tr.find("td"):
                        product = by_label[text_of(tr.th)]["product"]
                        assert text_of(tr.find_all("td")[-1]).startswith(real(product))
                        assert text_of(tr.find_all("td")[0]).endswith("× 60 more")
            assert text_of(table.find("tr", class_="more-row")).startswith("+ 7 more classes"), step
        else:  # zero-width: two of the zero variances, how many more, all of them one key away
            condensed = slide.find("table", class_="condensed")
            full = slide.select_one("details.full-table table.zero-variance")
            total = len(full.select("tbody tr"))
            assert len([tr for tr in condensed.select("tbody tr") if tr.find("td")]) == 2
            more = text_of(condensed.find("tr", class_="more-row"))
            assert more == f"+ {total - 2} more class-and-feature pairs with variance 0"
            # Each pair shown says what its spike does without ε.
            rows = [tr for tr in condensed.select("tbody tr") if tr.find("td")]
            assert total > 100 and all("density ∞" in text_of(tr) or "impossible" in text_of(tr) for tr in rows)
        # Every table left out is one key away, whole.
        assert slide.select("details.full-table"), step


def test_the_condensed_tables_keep_all_of_a_table_that_fits(client):
    slide, twin = step_slide(client, "iris", "logspace")
    explanation = twin["explanation"]
    assert twin["slide"] == {"classes": [c["class"] for c in explanation["classes"]],
                             "features": [f["feature"] for f in explanation["classes"][0]["features"]],
                             "more_classes": 0, "more_features": 0}
    table = slide.find("table", class_="condensed")
    assert [text_of(th) for th in table.select("thead th")[1:]] == twin["slide"]["classes"]
    assert table.find("tr", class_="more-row") is None and "more" not in text_of(table)
    product, _ = step_slide(client, "iris", "product")
    assert product.find("table", class_="condensed") is None  # the whole table, as before
