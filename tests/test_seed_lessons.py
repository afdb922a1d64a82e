"""The lectures' worked examples as one-click links on the home page: each link, followed as a student would follow it,
reproduces the notes' numbers; the lessons on the lectures' real corpora appear once the operator publishes them with
``webnb corpora add PATH --lesson ID``."""
from __future__ import annotations

import json

import pytest
from conftest import soup_of
from test_archives import make_tar

from webnb.lesson.seed_lessons import NEWSGROUPS_4, RECIPES, SEED_LESSONS, SPAM_PLACEHOLDERS

BUILT_IN = [lesson.id for lesson in SEED_LESSONS if lesson.recipe is None]
NEEDS_A_CLASS_CORPUS = [lesson.id for lesson in SEED_LESSONS if lesson.recipe is not None]


def lesson_links(client, section: str = ".seed-lessons:not(.textbook-lessons)") -> dict[str, str | None]:
    """Lesson id → the address its link opens (None: not linked), read from the home page's HTML: the lectures'
    lessons, or those of another ``section`` (the textbooks': ".textbook-lessons")."""
    soup = soup_of(client.get("/"))
    links = {}
    for item in soup.select(f"{section} .seed-lesson-list > li"):
        anchor = item.find("a")
        links[item["id"].removeprefix("lesson-")] = anchor["href"] if anchor else None
    return links


def followed(client, href: str) -> dict:
    """The JSON twin of the page a lesson link opens."""
    response = client.get(href + "&format=json")
    assert response.status_code == 200
    return response.get_json()


def joints(trace: dict) -> dict[str, str]:
    return {entry["class"]: entry["joint_exact"] for entry in trace["per_class"]}


def test_the_home_page_links_every_built_in_lesson_and_tells_how_to_publish_the_others(client):
    links = lesson_links(client)
    assert list(links) == [lesson.id for lesson in SEED_LESSONS]
    assert all(links[lesson_id] for lesson_id in BUILT_IN)
    assert all(links[lesson_id] is None for lesson_id in NEEDS_A_CLASS_CORPUS)
    text = soup_of(client.get("/")).select_one(".seed-lessons:not(.textbook-lessons) .seed-lesson-list").get_text(
        " ", strip=True)
    # One command per corpus, not one per lesson.
    assert text.count("webnb corpora add SMSSpamCollection --lesson sms-spam") == 1
    assert text.count("webnb corpora add 20news-bydate.tar.gz --lesson newsgroups-4") == 1
    listed = client.get("/?format=json").get_json()["lessons"]
    assert [(entry["id"], entry["href"]) for entry in listed] == list(links.items())


def test_match_reviews_without_smoothing_give_32_3645_against_0(client):
    trace = followed(client, lesson_links(client)["match-no-smoothing"])["trace"]
    assert trace["model"] == {"alpha": 0, "binary": True, "epsilon": None, "model": "bernoulli", "prior": "learned"}
    assert trace["tokens"] == ["match", "was", "sharp"]
    assert joints(trace) == {"positive": "32/3645", "negative": "0"}
    assert trace["decision"] == "positive" and not trace["cannot_decide"]


def test_not_sharp_match_without_smoothing_cannot_be_decided(client):
    page = followed(client, lesson_links(client)["match-cannot-decide"])
    trace = page["trace"]
    assert joints(trace) == {"positive": "0", "negative": "0"}
    assert trace["cannot_decide"] and page["unsmoothed_cannot_decide"]
    zeros = {entry["class"]: (entry["present_words"], entry["absent_words"]) for entry in page["zero_summary"]}
    assert zeros == {"positive": (["not"], []), "negative": ([], ["was"])}


def test_laplace_smoothing_decides_the_same_review(client):
    trace = followed(client, lesson_links(client)["match-laplace"])["trace"]
    assert trace["model"]["alpha"] == 1
    # 2/5 · (3/4)^5 · (2/4)^2 · 3/4 … every factor (count + 1)/(n + 2): nothing is 0 any more.
    assert joints(trace) == {"negative": "243/40960", "positive": "1944/1953125"}
    assert trace["decision"] == "negative" and not trace["cannot_decide"]


def test_china_japan_d5_is_china(client):
    trace = followed(client, lesson_links(client)["china-japan"])["trace"]
    assert trace["model"]["model"] == "multinomial" and trace["model"]["alpha"] == 1
    # 3/4 · (3/7)^3 · 1/14 · 1/14 against 1/4 · (2/9)^3 · 2/9 · 2/9, as in the notes.
    assert joints(trace) == {"China": "81/268912", "not China": "8/59049"}
    assert trace["decision"] == "China"


def test_spam_ham_replaces_the_phone_number_by_a_placeholder(client):
    href = lesson_links(client)["spam-ham"]
    assert sorted(value for name, value in _query(href) if name == "normalize") == sorted(SPAM_PLACEHOLDERS)
    trace = followed(client, href)["trace"]
    assert trace["tokens"][-1] == "__phone__"
    assert trace["decision"] == "spam"


def test_iris_classifies_the_first_flower_as_setosa(client):
    page = followed(client, lesson_links(client)["iris"])
    assert page["explanation"]["values"] == [5.1, 3.5, 1.4, 0.2]
    assert page["explanation"]["decision"] == "setosa"


def _query(href: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl, urlsplit

    return parse_qsl(urlsplit(href).query)


# -- the lectures' real corpora, published by the operator --------------------------------------------------------


def sms_spam_collection(shared_corpora, tmp_path):
    """The SMS Spam Collection in its original form: ``label<TAB>text`` lines, no header, named SMSSpamCollection."""
    path = tmp_path / "SMSSpamCollection"
    with open(shared_corpora / "sms-spam-collection-v1" / "all.jsonl", encoding="utf-8") as source:
        path.write_text("".join(f"{r['label']}\t{r['text']}\n" for r in map(json.loads, source)), encoding="utf-8")
    return path


@pytest.mark.slow  # about 1 s
def test_the_sms_lessons_appear_once_the_operator_publishes_the_collection(
        app, webnb, shared_corpora, tmp_path):
    code, out, err = webnb(app, "corpora", "add", sms_spam_collection(shared_corpora, tmp_path), "--lesson", "sms-spam")
    assert code == 0, err
    assert out == "Published sms-spam: SMS Spam Collection, 5,574 documents in 2 classes, for every workspace.\n"
    client = app.test_client()
    links = lesson_links(client)
    assert links["newsgroups-4"] is None  # still to publish

    plain = followed(client, links["sms-spam"])["trace"]
    assert plain["model"]["model"] == "multinomial" and plain["model"]["alpha"] == 1
    assert plain["decision"] == "spam"
    assert "£900" not in plain["tokens"] and "900" in plain["tokens"]

    placeholders = followed(client, links["sms-spam-placeholders"])["trace"]
    assert {"__money__", "__phone__"} <= set(placeholders["tokens"])
    assert "09061701461" not in placeholders["tokens"]
    assert placeholders["decision"] == "spam"

    # The collection's copyright and citation stay with it, on its own page.
    page = soup_of(client.get("/corpora/sms-spam")).get_text(" ", strip=True)
    assert "copyright Tiago A. Almeida and José María Gómez Hidalgo" in page
    assert "Proc. ACM DocEng 2011" in page


@pytest.mark.slow  # about 1 s
def test_the_newsgroups_lesson_restricts_to_the_four_groups_and_classifies_the_notes_query(
        app, webnb, shared_corpora):
    code, out, err = webnb(app, "corpora", "add", shared_corpora / "20newsgroups-bydate" / "train.jsonl.gz",
                           "--lesson", "newsgroups-4")
    assert code == 0, err
    assert out.startswith("Published newsgroups-4: 20 Newsgroups, four groups, 2,257 documents in 4 classes")
    client = app.test_client()
    page = followed(client, lesson_links(client)["newsgroups-4"])
    trace = page["trace"]
    assert trace["model"] == {"alpha": 0, "binary": True, "epsilon": 1e-14, "model": "bernoulli", "prior": "learned"}
    assert trace["vocabulary_size"] == 1000
    assert trace["classes"] == list(NEWSGROUPS_4)
    assert trace["text"] == "OpenGL on the GPU is fast"
    assert trace["decision"] == "comp.graphics"  # as in the notes


def newsgroups_archive(tmp_path):
    """A small 20news-bydate.tar.gz: training and test folders, the four lecture groups and one more."""
    posts = {f"20news-bydate-{part}/{group}/{1000 + n}":
             f"From: someone\nSubject: post {n}\n\n{group.replace('.', ' ')} words {n}\n"
             for part, count in (("train", 3), ("test", 2)) for group in (*NEWSGROUPS_4, "rec.autos")
             for n in range(count)}
    path = tmp_path / "20news-bydate.tar.gz"
    path.write_bytes(make_tar(posts))
    return path


def test_the_original_archive_publishes_both_parts_with_the_test_part_as_the_test_set(app, webnb, tmp_path):
    code, out, err = webnb(app, "corpora", "add", newsgroups_archive(tmp_path), "--lesson", "newsgroups-4")
    assert code == 0, err
    assert out.splitlines() == [
        "Published newsgroups-4: 20 Newsgroups, four groups, 12 documents in 4 classes, for every workspace.",
        "Published newsgroups-4-test: 20 Newsgroups, four groups (test), 8 documents in 4 classes, for every "
        "workspace.",
    ]
    listed = {entry["id"]: entry for entry in app.test_client().get("/?format=json").get_json()["class_corpora"]}
    assert listed["newsgroups-4"]["presets"]["test"] == "newsgroups-4-test"
    assert listed["newsgroups-4"]["class_counts"] == dict.fromkeys(NEWSGROUPS_4, 3)


@pytest.mark.parametrize("options, kept", [
    (("--id", "my-groups", "--labels", "comp.graphics,sci.med"), {"id": "my-groups", "classes": 2}),
    (("--alpha", "1", "--max-features", "5"), {"id": "newsgroups-4", "classes": 4}),
])
def test_the_command_line_changes_what_the_recipe_names(app, webnb, tmp_path, options, kept):
    code, _, err = webnb(app, "corpora", "add", newsgroups_archive(tmp_path), "--lesson", "newsgroups-4", *options)
    assert code == 0, err
    (entry,) = [e for e in app.test_client().get("/?format=json").get_json()["class_corpora"]
                if not e["id"].endswith("-test")]
    assert entry["id"] == kept["id"] and len(entry["class_counts"]) == kept["classes"]
    presets = entry["presets"]
    if "--alpha" in options:
        assert presets["alpha"] == "1" and presets["max_features"] == "5" and presets["binary"] == "1"
    else:
        assert presets["alpha"] == "0" and presets["max_features"] == "1000"


def test_without_a_lesson_the_id_and_name_are_required_and_nothing_is_stored(app, webnb, tmp_path):
    code, _, err = webnb(app, "corpora", "add", newsgroups_archive(tmp_path))
    assert code == 2 and "give --id and --name" in err
    assert "class_corpora" not in app.test_client().get("/?format=json").get_json()


def test_every_recipe_names_a_source_and_presets_the_pages_accept():
    from webnb.lesson.state import check_presets

    for recipe in RECIPES:
        assert recipe.source and recipe.presets
        check_presets(recipe.presets, 1000)  # raises with the pages' message for a preset they cannot use



HOSTILE = '<script>alert(1)</script>" onmouseover="x.y'


@pytest.mark.parametrize("step", ["factors", "zeros", "smoothing", "logspace"])
def test_the_slides_escape_hostile_class_labels(app, client, step):
    """The slides lay the classes across and let a label break after its dots: still escaped, inside cells and
    headers alike (three classes, so that the log-space slide lays them across too)."""
    from webnb.engine import Corpus

    pairs = [(label, f"{word} shared") for label, word in ((HOSTILE, "alpha"), ("b.c", "beta"), ("d", "gamma"))
             for _ in range(2)]
    corpus_id = app.extensions["webnb"]["catalog"].add(Corpus.from_pairs(pairs), name="hostile", source="test")
    soup = soup_of(client.get(f"/corpora/{corpus_id}/inference", query_string={
        "model": "bernoulli", "alpha": "0", "text": "alpha beta", "step": step, "presenter": "1"}))
    assert soup.find("script", string=lambda s: s and "alert" in s) is None
    assert not [tag for tag in soup.find_all(True) if any(a.startswith("on") for a in tag.attrs)]
    labels = [cell.get_text("", strip=True) for cell in soup.select(f"#step-{step} th, #step-{step} td")]
    assert any(HOSTILE in text for text in labels), labels


def review_polarity_archive(shared_corpora, tmp_path):
    """review_polarity.tar.gz as Cornell ships it: txt_sentoken/pos and txt_sentoken/neg, one file per review."""
    with open(shared_corpora / "movie-review-polarity-v2.0" / "all.jsonl", encoding="utf-8") as source:
        reviews = {f"txt_sentoken/{review['label']}/{review['id']}": review["text"]
                   for review in map(json.loads, source)}
    path = tmp_path / "review_polarity.tar.gz"
    path.write_bytes(make_tar(reviews))
    return path


@pytest.mark.corpora
@pytest.mark.slow  # a few seconds
def test_the_movie_review_lessons_of_seed_003_appear_once_the_reviews_are_published(
        app, webnb, shared_corpora, tmp_path):
    """Seed 003's lesson: the 2,000 polarity reviews, English stop words removed, pseudo-count 2 in its β/α
    notation; then the same reviews as word pairs."""
    assert lesson_links(app.test_client())["movie-reviews"] is None
    text = soup_of(app.test_client().get("/")).select_one(".seed-lesson-list").get_text(" ", strip=True)
    assert text.count("webnb corpora add review_polarity.tar.gz --lesson movie-reviews") == 1
    code, out, err = webnb(app, "corpora", "add", review_polarity_archive(shared_corpora, tmp_path),
                           "--lesson", "movie-reviews")
    assert code == 0, err
    assert out.startswith("Published movie-reviews: Movie reviews, 2,000 documents in 2 classes")
    client = app.test_client()
    links = lesson_links(client)
    words = followed(client, links["movie-reviews"])["trace"]
    assert words["model"]["model"] == "multinomial" and words["model"]["alpha"] == 2
    assert words["tokens"] == ["great", "film", "wonderful", "story", "ending", "bad"]  # "a", "with", "but" … gone
    assert words["classes"] == ["neg", "pos"] and words["decision"] in ("neg", "pos")
    page = soup_of(client.get(links["movie-reviews"]))
    assert "β" in page.get_text() and "γ = 2" in page.get_text()  # the notes' notation: γ is their pseudo-count
    pairs = followed(client, links["movie-reviews-bigrams"])["trace"]
    assert pairs["model"]["alpha"] == "1/10"
    assert pairs["tokens"] == ["acting good", "good waste", "waste time"]
