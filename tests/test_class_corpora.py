"""Class corpora: ``webnb corpora add|list|remove`` publishes a corpus to every workspace, read-only like a built-in,
listed with its description and presets, opened with its presets as defaults, stored and counted once; on SQLite and
PostgreSQL, in local and hosted mode."""
from __future__ import annotations

import io
import json
import tarfile

import pytest
import sqlalchemy as sa
from conftest import HOSTED_SECRET, slow_but_the_first, soup_of

from webnb.engine.io.uploads import read_upload
from webnb.lesson.state import entry_defaults
from webnb.store.database import class_corpora, content_hash, contents, corpora, documents

# Three newsgroups of ten posts each; the words tell them apart.
GROUPS = {
    "comp.graphics": ("opengl gpu render pixels", "shader texture polygon"),
    "rec.autos": ("engine brakes wheels", "gearbox clutch tyres"),
    "sci.space": ("orbit rocket launch", "moon lander telescope"),
}
LECTURE_LINES = "".join(
    f"{group}\t{words[n % 2]} post {n} about {group.split('.')[-1]}\n"
    for group, words in GROUPS.items() for n in range(10)
)
PRESETS = ["--model", "bernoulli", "--alpha", "0.5", "--binary", "--max-features", "6", "--floor",
           "--review", "OpenGL on the GPU is fast"]


@pytest.fixture()
def lecture_file(tmp_path):
    """A headerless label<TAB>text file, as the SMS Spam Collection is written: 30 posts in three groups."""
    path = tmp_path / "newsgroups.txt"
    path.write_text(LECTURE_LINES, encoding="utf-8")
    return path


def student(app):
    client = app.test_client()
    assert client.get("/").status_code == 200  # the workspace cookie
    return client


def storage_of(app):
    return app.extensions["webnb"]["storage"]


def rows(app, table) -> int:
    with storage_of(app).engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()


def publish(webnb, app, path, *options, corpus_id="newsgroups", name="Three newsgroups"):
    code, out, err = webnb(app, "corpora", "add", path, "--id", corpus_id, "--name", name, *options)
    assert code == 0, err
    return out


# -- add, list, remove ------------------------------------------------------------------------------------------


def test_add_list_and_remove_through_the_command_line(app_on_both_databases, webnb, lecture_file):
    app = app_on_both_databases
    out = publish(webnb, app, lecture_file, "--description", "Posts of three groups.", *PRESETS)
    assert out == "Published newsgroups: Three newsgroups, 30 documents in 3 classes, for every workspace.\n"
    summary = storage_of(app).class_corpus("newsgroups")
    assert (summary.name, summary.description) == ("Three newsgroups", "Posts of three groups.")
    assert summary.n_documents == 30
    assert summary.source == "published by the operator from newsgroups.txt"
    assert summary.class_counts == (("comp.graphics", 10), ("rec.autos", 10), ("sci.space", 10))
    assert summary.presets == (("model", "bernoulli"), ("alpha", "0.5"), ("binary", "1"), ("max_features", "6"),
                               ("floor", "1"), ("text", "OpenGL on the GPU is fast"))
    assert summary.content == content_hash(read_upload(LECTURE_LINES.encode(), filename="newsgroups.txt").corpus)

    code, out, _ = webnb(app, "corpora", "list")
    assert code == 0
    assert out.splitlines() == [
        "newsgroups: Three newsgroups, 30 documents (comp.graphics 10, rec.autos 10, sci.space 10)",
        "  opens with bernoulli model, α = 0.5, binary features, the 6 most frequent words, the 10⁻¹⁴ floor, "
        "the review “OpenGL on the GPU is fast”",
    ]
    code, out, _ = webnb(app, "corpora", "list", "--json")
    assert code == 0 and json.loads(out) == [{
        "id": "newsgroups", "name": "Three newsgroups", "description": "Posts of three groups.",
        "source": "published by the operator from newsgroups.txt", "documents": 30,
        "class_counts": {"comp.graphics": 10, "rec.autos": 10, "sci.space": 10},
        "presets": {"model": "bernoulli", "alpha": "0.5", "binary": "1", "max_features": "6", "floor": "1",
                    "text": "OpenGL on the GPU is fast"},
    }]

    code, out, _ = webnb(app, "corpora", "remove", "newsgroups")
    assert (code, out) == (0, "Removed newsgroups: Three newsgroups. Workspaces no longer see it.\n")
    assert app.test_client().get("/corpora/newsgroups").status_code == 404
    code, out, _ = webnb(app, "corpora", "list")
    assert out.startswith("No class corpora are published.")
    # Nothing else used its records: they are gone with it.
    assert (rows(app, class_corpora), rows(app, contents), rows(app, documents)) == (0, 0, 0)
    code, _, err = webnb(app, "corpora", "remove", "newsgroups")
    assert code == 2 and "There is no class corpus 'newsgroups'" in err
    code, _, err = webnb(app, "corpora", "remove", "match-reviews")
    assert code == 2 and "'match-reviews' is a built-in corpus; it cannot be removed." in err


# -- what every workspace sees ------------------------------------------------------------------------------------


def test_every_workspace_sees_it_with_its_description_and_presets(hosted_app, webnb, lecture_file):
    app = hosted_app()
    publish(webnb, app, lecture_file, "--description", "Posts of three groups.", *PRESETS)
    for client in (student(app), student(app)):
        home = soup_of(client.get("/"))
        section = home.find("section", id="example-newsgroups")
        assert section.h3.get_text() == "Three newsgroups"
        assert "Posts of three groups." in section.get_text()
        assert section.find("p", class_="presets").get_text() == (
            "Opens with bernoulli model, α = 0.5, binary features, the 6 most frequent words, the 10⁻¹⁴ floor, the "
            "review “OpenGL on the GPU is fast”.")
        links = [a["href"] for a in section.find_all("a")]
        assert links == ["/corpora/newsgroups", "/corpora/newsgroups/inference"]
        counts = [[cell.get_text() for cell in row.find_all(["th", "td"])] for row in section.tbody.find_all("tr")]
        assert counts == [["comp.graphics", "10"], ["rec.autos", "10"], ["sci.space", "10"]]
        assert client.get("/?format=json").get_json()["class_corpora"] == [{
            "id": "newsgroups", "name": "Three newsgroups", "description": "Posts of three groups.",
            "source": "published by the operator from newsgroups.txt", "documents": 30,
            "class_counts": {"comp.graphics": 10, "rec.autos": 10, "sci.space": 10},
            "presets": {"model": "bernoulli", "alpha": "0.5", "binary": "1", "max_features": "6", "floor": "1",
                        "text": "OpenGL on the GPU is fast"},
            "test_set": None,
        }]

        listing = soup_of(client.get("/corpora"))
        item = listing.find("section", attrs={"aria-labelledby": "class-corpora-title"}).li
        assert item.a["href"] == "/corpora/newsgroups" and item.a.get_text() == "Three newsgroups"
        assert "30 documents · comp.graphics, rec.autos, sci.space" in item.get_text()
        assert "Opens with bernoulli model, α = 0.5" in item.get_text()
        built_in = listing.find("section", attrs={"aria-labelledby": "builtin-title"})
        assert "Three newsgroups" not in built_in.get_text() and listing.find(id="stored-title") is None
        listed = client.get("/corpora?format=json").get_json()["corpora"]
        assert {"id": "newsgroups", "name": "Three newsgroups", "builtin": True, "documents": 30, "features": None,
                "source": "published by the operator from newsgroups.txt",
                "classes": ["comp.graphics", "rec.autos", "sci.space"], "description": "Posts of three groups.",
                "presets": {"model": "bernoulli", "alpha": "0.5", "binary": "1", "max_features": "6", "floor": "1",
                            "text": "OpenGL on the GPU is fast"}} in listed
        assert client.get("/corpora/newsgroups").status_code == 200


def test_a_server_without_class_corpora_answers_as_before(hosted_app):
    client = student(hosted_app())
    assert set(client.get("/?format=json").get_json()) == {"lessons", "textbook_lessons", "examples", "tables"}
    assert soup_of(client.get("/")).find(id="class-corpora-title") is None
    assert soup_of(client.get("/corpora")).find(id="class-corpora-title") is None


def test_its_pages_open_with_the_presets(hosted_app, webnb, lecture_file):
    app = hosted_app()
    publish(webnb, app, lecture_file, *PRESETS)
    client = student(app)
    lesson = client.get("/corpora/newsgroups/inference?format=json").get_json()
    trace = lesson["trace"]
    assert trace["model"] == {"model": "bernoulli", "alpha": "1/2", "binary": True, "epsilon": 1e-14,
                              "prior": "learned"}
    assert trace["text"] == "OpenGL on the GPU is fast" and trace["vocabulary_size"] == 6
    assert lesson["epsilon"] == 1e-14
    # The presets are the page's defaults: its links leave them out, as a built-in's links leave out its own.
    page = soup_of(client.get("/corpora/newsgroups/inference"))
    step = page.find("a", href=lambda href: href and "step=vector" in href)["href"]
    assert "binary" not in step and "max_features" not in step and "floor" not in step
    assert "model=bernoulli" in step and "alpha=0.5" in step  # carried by every link, as for a built-in
    # A setting changed in the address wins over the preset (an empty one leaves the preset, as for any default).
    changed = client.get("/corpora/newsgroups/inference?model=multinomial&max_features=100&format=json").get_json()
    assert changed["trace"]["model"]["model"] == "multinomial" and changed["trace"]["vocabulary_size"] > 6


@pytest.mark.slow  # about 1 s
def test_a_student_cannot_alter_it_beyond_what_a_built_in_allows(hosted_app, webnb, lecture_file):
    app = hosted_app()
    publish(webnb, app, lecture_file)
    client = student(app)
    # No page adds, changes or removes a class corpus; every form that posts to a corpus answers as for a built-in.
    # The only routes about classes are those of a class in the room (webnb/room/),
    # which name no corpus and whose start form, without the operator's instructor key, starts nothing.
    assert sorted(rule.rule for rule in app.url_map.iter_rules() if "class" in rule.rule) == [
        "/classes", "/classes/<code>", "/classes/<code>/end", "/classes/<code>/events", "/classes/<code>/follow",
        "/classes/<code>/follow.json", "/classes/<code>/headcount", "/classes/<code>/lead/<secret>",
        "/classes/<code>/questions",
        "/classes/<code>/questions/<int:number>", "/classes/<code>/questions/<int:number>/answers",
        "/classes/<code>/questions/<int:number>/answers.csv", "/classes/<code>/questions/<int:number>/hide",
        "/classes/<code>/questions/<int:number>/own-answer", "/classes/<code>/questions/<int:number>/reveal",
        "/classes/<code>/questions/<int:number>/tally", "/classes/<code>/show"]
    assert client.post("/classes", data={"corpus": "newsgroups"}).status_code == 404
    posted = sorted(rule.rule for rule in app.url_map.iter_rules()
                    if "corpus_id" in rule.arguments and "POST" in rule.methods)
    assert posted == ["/corpora/<corpus_id>/add/keep", "/corpora/<corpus_id>/share"]
    for corpus_id in ("match-reviews", "newsgroups"):
        assert client.post(f"/corpora/{corpus_id}/share").status_code == 404
        assert client.post(f"/corpora/{corpus_id}/add/keep", data={"label": "nope", "document": "x"}).status_code == 400
    # Keeping a document added is a copy in the student's own workspace, as from a built-in; the original stays.
    kept = client.post("/corpora/newsgroups/add/keep", data={"label": "sci.space", "document": "a comet"})
    assert kept.status_code == 303
    copy_id = kept.headers["Location"].split("/")[2]
    assert storage_of(app).summary(copy_id).n_documents == 31
    assert storage_of(app).class_corpus("newsgroups").n_documents == 30
    assert student(app).get(f"/corpora/{copy_id}").status_code == 404  # the copy is the student's alone
    assert app.extensions["webnb"]["catalog"].get("newsgroups").corpus.texts[-1] != "a comet"


def test_it_is_stored_and_counted_once_for_everyone(tmp_path, database_url, make_hosted_app, webnb, lecture_file):
    first = make_hosted_app(DATABASE_URL=database_url)
    publish(webnb, first, lecture_file, *PRESETS)  # counted under its presets as it is published
    storage = storage_of(first)
    assert list(storage.count_builds().values()) == [1]

    second = make_hosted_app(DATABASE_URL=database_url, SECRET_KEY=HOSTED_SECRET)  # another process or machine
    for client in (student(first), student(second), student(second)):
        for page in ("parameters", "inference", "matrix"):
            assert client.get(f"/corpora/newsgroups/{page}?format=json").status_code == 200
    assert second.extensions["webnb"]["catalog"].counted_here == []
    assert set(storage.count_builds().values()) == {1}
    # A student uploading the same file gets an entry of their own for the same records: nothing stored twice.
    upload = student(second).post("/corpora/upload", data={"file": (io.BytesIO(LECTURE_LINES.encode()), "mine.txt")})
    assert upload.status_code == 303
    assert (rows(first, contents), rows(first, documents), rows(first, corpora)) == (1, 30, 1)


# -- restricting, two parts, refusals -----------------------------------------------------------------------------


def test_labels_keep_only_those_classes(app_on_both_databases, webnb, lecture_file):
    app = app_on_both_databases
    publish(webnb, app, lecture_file, "--labels", "comp.graphics,sci.space")
    entry = app.extensions["webnb"]["catalog"].get("newsgroups")
    assert entry.class_counts == (("comp.graphics", 10), ("sci.space", 10)) and entry.n_documents == 20
    assert set(entry.corpus.labels) == {"comp.graphics", "sci.space"}
    assert "rec.autos" not in app.test_client().get("/corpora/newsgroups/parameters?format=json").get_data(True)


def newsgroups_archive() -> bytes:
    """20 Newsgroups by date in miniature: a training part and a test part, three groups each."""
    files = {}
    for part, count in (("train", 6), ("test", 3)):
        for group, words in GROUPS.items():
            for n in range(count):
                files[f"20news-bydate-{part}/{group}/{n + 1}"] = f"Subject: {words[n % 2]}\n\n{words[0]} {n}\n"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    return buffer.getvalue()


def test_a_two_part_archive_publishes_its_test_part_as_the_test_set(hosted_app, webnb, tmp_path):
    app = hosted_app()
    path = tmp_path / "20news-bydate.tar.gz"
    path.write_bytes(newsgroups_archive())
    out = publish(webnb, app, path, "--test-id", "news-test", "--labels", "comp.graphics,rec.autos",
                  corpus_id="news", name="Two newsgroups")
    assert out.splitlines() == [
        "Published news: Two newsgroups, 12 documents in 2 classes, for every workspace.",
        "Published news-test: Two newsgroups (test), 6 documents in 2 classes, for every workspace.",
    ]
    catalog = app.extensions["webnb"]["catalog"]
    assert entry_defaults(catalog.get("news")).test == "news-test"
    assert entry_defaults(catalog.get("news-test")).test == "training"  # under 10 documents, as a built-in's
    evaluation = student(app).get("/corpora/news/evaluation?format=json").get_json()
    assert (evaluation["n_test"], evaluation["test"]["n_train"]) == (6, 12)
    # The test part cannot go while the training part is tested on it.
    code, _, err = webnb(app, "corpora", "remove", "news-test")
    assert code == 2 and "'news-test' is the test corpus of 'news': remove that first." in err
    assert webnb(app, "corpora", "remove", "news")[0] == 0 and webnb(app, "corpora", "remove", "news-test")[0] == 0

    # Without --test-id, the training part alone, and a word that the test part was left out.
    code, _, err = webnb(app, "corpora", "add", path, "--id", "news", "--name", "Training only")
    assert code == 0 and "only the training part is published" in err
    assert [entry.id for entry in catalog.builtin() if entry.class_corpus] == ["news"]


@pytest.mark.parametrize(("options", "message"), slow_but_the_first(3, [
    (["--id", "Big_News"], "The id 'Big_News' cannot be used: write it as the built-ins' ids are written"),
    (["--id", "match-reviews"], "The id 'match-reviews' is a built-in corpus's. Choose another."),
    (["--id", "upload"], "/corpora/upload is the address of another page"),
    (["--alpha", "-1"], "--alpha: "),
    (["--alpha", "5000"], "--alpha: α above 1000 drowns every count; use a value between 0 and 1000."),
    (["--model", "gaussian"], "--model: The model is Bernoulli, multinomial or Complement."),
    (["--ngram-range", "1,3"], "--ngram-range: Words can be single words (1-1), words and pairs (1-2) or pairs (2-2)."),
    (["--max-features", "-4"], "--max-features: max_features is a whole number of words, from 1 to 10,000,000, or all "
                               "for no limit."),
    (["--min-df", "2.5"], "--min-df: min_df: a whole number of documents or a fraction between 0 and 1"),
    (["--stop-words", "french"], "--stop-words: Unknown stop words option."),
    (["--labels", "comp.graphics,alt.atheism"], "has no class 'alt.atheism'; its classes are comp.graphics, rec.autos"),
    (["--labels", "comp.graphics"], "--labels keeps too few classes: a classifier needs at least two."),
    (["--test-id", "news-test"], "has no test part"),
]))
def test_bad_input_is_refused_and_stores_nothing(app_on_both_databases, webnb, lecture_file, options, message):
    app = app_on_both_databases
    arguments = {"--id": "newsgroups", "--name": "Three newsgroups"}
    arguments.update(dict(zip(options[::2], options[1::2], strict=True)))
    code, out, err = webnb(app, "corpora", "add", lecture_file, *(part for pair in arguments.items() for part in pair))
    assert code == 2 and out == "" and message in err, err
    assert (rows(app, class_corpora), rows(app, contents)) == (0, 0)


def test_an_id_taken_by_another_class_corpus_or_a_stored_corpus_is_refused(app_on_both_databases, webnb, lecture_file):
    app = app_on_both_databases
    publish(webnb, app, lecture_file)
    code, _, err = webnb(app, "corpora", "add", lecture_file, "--id", "newsgroups", "--name", "Again")
    assert code == 2 and "The id 'newsgroups' is taken already. Nothing was stored." in err
    assert storage_of(app).class_corpus("newsgroups").name == "Three newsgroups"


def test_removing_it_keeps_the_records_a_workspace_corpus_shares(hosted_app, webnb, lecture_file):
    app = hosted_app()
    publish(webnb, app, lecture_file)
    client = student(app)
    upload = client.post("/corpora/upload", data={"file": (io.BytesIO(LECTURE_LINES.encode()), "mine.txt")})
    own_id = upload.headers["Location"].rsplit("/", 1)[1]
    assert rows(app, contents) == 1  # one content for both entries
    assert webnb(app, "corpora", "remove", "newsgroups")[0] == 0
    assert (rows(app, contents), rows(app, documents)) == (1, 30)
    own = client.get(f"/corpora/{own_id}?format=json").get_json()
    assert (own["error"], own["corpus"]["documents"]) == (None, 30)
    assert storage_of(app).get_corpus(own_id).corpus.texts == read_upload(LECTURE_LINES.encode()).corpus.texts
    assert student(app).get("/corpora/newsgroups").status_code == 404
