"""A local-mode server on a database where hosted workspaces stored corpora: it refuses to start, saying how many and
the ways on, unless told to (WEBNB_ALLOW_WORKSPACES, ``webnb serve --allow-workspaces``); and allowed, it lists only
what local mode stored, the built-ins and the class corpora, never a workspace's corpus."""
from __future__ import annotations

import io

import pytest
from conftest import HOSTED_SECRET, pasted_id

from webnb import create_app
from webnb.cli import main

HOSTED_PASTE = "pos\tzyxhosted great match\nneg\tzyxhosted dull match\npos\tbrilliant goal\nneg\tslow game"
LOCAL_PASTE = "pos\tsharp keeper\nneg\tdull draw\npos\tsuperb save\nneg\tslow game"


@pytest.fixture(autouse=True)
def _no_allowance_from_outside(monkeypatch):
    """Neither the environment of the run nor a test before decides (set and put back by monkeypatch)."""
    monkeypatch.setenv("WEBNB_ALLOW_WORKSPACES", "0")
    monkeypatch.setenv("WEBNB_MODE", "local")


@pytest.fixture()
def database(tmp_path):
    return f"sqlite:///{tmp_path / 'shared.sqlite3'}"


def local_app(tmp_path, database, **config):
    settings = {"TESTING": True, "WTF_CSRF_ENABLED": False, "DATABASE_URL": database, **config}
    return create_app(settings, instance_path=str(tmp_path / "laptop"))


@pytest.fixture()
def hosted_database(make_hosted_app, database):
    """The database after two students stored three corpora in hosted mode."""
    app = make_hosted_app(DATABASE_URL=database)
    alice, bob = app.test_client(), app.test_client()
    pasted_id(alice, HOSTED_PASTE, "Alice hosted corpus")
    pasted_id(alice, HOSTED_PASTE + "\nneg\tanother", "Alice second corpus")
    pasted_id(bob, HOSTED_PASTE + "\npos\tmore", "Bob hosted corpus")
    app.extensions["webnb"]["storage"].dispose()
    return database


def test_local_mode_refuses_a_database_of_hosted_workspaces(tmp_path, hosted_database):
    with pytest.raises(RuntimeError) as refused:
        local_app(tmp_path, hosted_database)
    message = str(refused.value)
    assert message.startswith(
        "This database holds 2 hosted workspaces (3 corpora that students stored in hosted mode), and webnb is "
        "starting in local mode, where everything stored would be one user's. Nothing was started.")
    for way_on in ("WEBNB_MODE=hosted", "WEBNB_DATABASE_URL", "`webnb serve --allow-workspaces`",
                   "WEBNB_ALLOW_WORKSPACES=1", "WEBNB_ALLOW_WORKSPACES = True in instance/config.py"):
        assert way_on in message


def test_hosted_mode_and_a_fresh_or_local_database_start_as_before(tmp_path, hosted_database, database,
                                                                    make_hosted_app):
    assert make_hosted_app(DATABASE_URL=hosted_database)  # hosted mode on its own database
    laptop = f"sqlite:///{tmp_path / 'laptop.sqlite3'}"
    app = local_app(tmp_path, laptop)  # a fresh database
    pasted_id(app.test_client(), LOCAL_PASTE, "mine")
    app.extensions["webnb"]["storage"].dispose()
    assert local_app(tmp_path, laptop)  # corpora stored in local mode belong to no workspace: no reason to refuse


@pytest.mark.parametrize("allowance", ["config", "environment"])
def test_allowed_local_mode_lists_none_of_the_workspaces_corpora(tmp_path, hosted_database, monkeypatch, allowance,
                                                                 make_hosted_app):
    if allowance == "config":
        app = local_app(tmp_path, hosted_database, WEBNB_ALLOW_WORKSPACES=True)
    else:
        monkeypatch.setenv("WEBNB_ALLOW_WORKSPACES", "1")
        app = local_app(tmp_path, hosted_database)
    client = app.test_client()
    local_id = pasted_id(client, LOCAL_PASTE, "Laptop corpus")

    listed = client.get("/corpora?format=json").get_json()
    text = client.get("/corpora").get_data(as_text=True)
    assert "Laptop corpus" in text and "hosted corpus" not in text and "Alice" not in text
    assert "zyxhosted" not in str(listed) and "Alice" not in str(listed) and local_id in str(listed)
    home = client.get("/").get_data(as_text=True)
    assert "hosted corpus" not in home and "Alice" not in home
    assert "match-reviews" in str(listed)  # the built-ins are listed as ever
    # Nor is a workspace's corpus offered as a test set on the evaluation page.
    evaluation = client.get("/corpora/match-reviews/evaluation").get_data(as_text=True)
    assert "hosted corpus" not in evaluation and "Laptop corpus" in evaluation

    # The students in hosted mode still see only their own, and not the laptop's.
    hosted = make_hosted_app(DATABASE_URL=hosted_database, SECRET_KEY=HOSTED_SECRET).test_client()
    assert "Laptop corpus" not in hosted.get("/corpora").get_data(as_text=True)


def test_webnb_serve_refuses_and_allow_workspaces_starts_it(tmp_path, hosted_database, monkeypatch, capsys):
    import webnb

    real = webnb.create_app
    monkeypatch.setattr("webnb.create_app", lambda: real(
        {"TESTING": True, "DATABASE_URL": hosted_database}, instance_path=str(tmp_path / "served")))
    served = []
    monkeypatch.setattr("flask.Flask.run", lambda app, **options: served.append((app, options)))

    assert main(["serve"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("webnb serve: This database holds 2 hosted workspaces (3 corpora")
    assert "run `webnb serve --allow-workspaces`" in error and served == []

    assert main(["serve", "--allow-workspaces", "--port", "5123"]) == 0
    (app, options), = served
    assert options == {"host": "127.0.0.1", "port": 5123, "debug": False}
    assert "hosted corpus" not in app.test_client().get("/corpora").get_data(as_text=True)


def test_the_maintenance_commands_open_such_a_database_in_local_mode(tmp_path, hosted_database, monkeypatch):
    import os

    import webnb

    real = webnb.create_app
    monkeypatch.setattr("webnb.create_app", lambda: real(
        {"TESTING": True, "DATABASE_URL": hosted_database}, instance_path=str(tmp_path / "operator")))
    out = io.StringIO()
    assert main(["corpora", "list"], out=out) == 0
    assert out.getvalue().startswith("No class corpora are published.")
    assert os.environ["WEBNB_ALLOW_WORKSPACES"] == "0"  # put back once the command's app was made
