"""Four findings of a red-team round, each reproduced here before it was fixed:

1. a table whose column is constant near the largest float made every Gaussian page say "Choose a var_smoothing
   below nan" (the per-class variance overflowed in the scaled fallback);
2. with ``WEBNB_PROXIES`` set, a client's ``X-Forwarded-Host`` rewrote the absolute links webnb makes (share links);
3. a 4xx raised by Flask or Werkzeug (a download with an unusable setting, an unknown address, a wrong method)
   answered Flask's bare page instead of webnb's own;
4. a full disk was reported as "cannot reach its database, wait a minute".
"""
from __future__ import annotations

import html
import io
import re
import sqlite3

import numpy as np
import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup

from tests.conftest import paste
from webnb import create_app
from webnb.engine.gaussian.model import GaussianStatistics
from webnb.engine.gaussian.table import read_numeric_csv
from webnb.engine.shared.corpus import CorpusError
from webnb.hosting import outages
from webnb.hosting.outages import STORAGE_UNAVAILABLE
from webnb.lesson.state import GAUSSIAN_STEPS

NAN = re.compile(r"\bnan\b", re.IGNORECASE)
PASTE_TEXT = "pos\tgreat match and a sharp keeper\nneg\tdull match\npos\tbrilliant goal\nneg\tslow dull game"


def make_app(tmp_path, **config):
    return create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, **config}, instance_path=str(tmp_path / "instance"))


def stored_id(response) -> str:
    assert response.status_code == 303, response.get_data(as_text=True)[:1000]
    return response.headers["Location"].rsplit("/", 1)[-1]


def webnb_page(response, status: int) -> tuple[BeautifulSoup, str]:
    """The page, once it is webnb's own (its site header and nav, which Flask's bare pages lack): (soup, the alert's
    text)."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:300])
    assert response.mimetype == "text/html"
    soup = BeautifulSoup(response.get_data(as_text=True), "html.parser")
    assert soup.select_one("header.site-header a.brand") is not None, soup.get_text(" ", strip=True)[:300]
    assert soup.select_one("nav.site-nav") is not None
    alert = soup.select_one("[role=alert]")
    assert alert is not None
    return soup, " ".join(alert.get_text(" ").split())


# --- 1. a column constant near the largest float ------------------------------------------------------------------


def constant_table(value: str, rows: int) -> str:
    """Column a holds ``value`` on every row, b counts the rows, and the classes alternate."""
    return "a,b,label\n" + "\n".join(f"{value},{i},{'xy'[i % 2]}" for i in range(rows))


@pytest.mark.parametrize("value", ["1.7e308", "-1.7e308", "1.7976931348623157e308", "1e308", "9e307"])
@pytest.mark.parametrize("rows", range(2, 15))
def test_a_column_constant_near_the_largest_float_has_exact_statistics(value, rows):
    statistics = GaussianStatistics.fit(read_numeric_csv(constant_table(value, rows)))
    assert statistics.means[:, 0].tolist() == [float(value)] * 2
    assert statistics.variances[:, 0].tolist() == [0.0, 0.0]
    assert statistics.sample_variances[:, 0].tolist() == [0.0, 0.0]
    assert statistics.feature_variances[0] == 0.0
    # ε comes from column b, the only one that varies: var(0, 1, …, rows − 1) = (rows² − 1)/12.
    assert statistics.feature_variances[1] == pytest.approx((rows**2 - 1) / 12, rel=1e-15)
    model = statistics.model()
    assert model.epsilon == pytest.approx(1e-9 * (rows**2 - 1) / 12, rel=1e-15)
    assert np.all(np.isfinite(model.smoothed_variances))
    rows_read = read_numeric_csv(constant_table(value, rows)).values
    assert not np.any(np.isnan(model.joint_log_likelihood(rows_read)))


def test_a_column_spanning_plus_and_minus_1e308_is_refused_naming_the_column():
    with pytest.raises(CorpusError, match=r"Column 'a' runs from -1e\+308 \(line 3\) to 1e\+308 \(line 2\)") as refused:
        read_numeric_csv("a,b,label\n" + "\n".join(f"{'-' if i % 2 else ''}1e308,{i},{'xy'[i % 2]}" for i in range(6)))
    assert "span must stay below 1.3e154" in str(refused.value)


GAUSSIAN_PAGES = ("", "/parameters", "/evaluation", "/parity?of=parameters", "/parity?of=evaluation",
                  *(f"/inference?step={step}" for step in GAUSSIAN_STEPS))


@pytest.mark.slow  # about 1 s
def test_no_gaussian_page_of_a_constant_near_the_largest_float_says_nan(tmp_path):
    client = make_app(tmp_path).test_client()
    corpus_id = stored_id(paste(client, constant_table("1.7e308", 6), "near the largest float"))
    base = f"/corpora/{corpus_id}/gaussian"
    for settings in ("", "var_smoothing=0", "train=split", "test=training"):
        for page in GAUSSIAN_PAGES:
            url = base + page + (("&" if "?" in page else "?") + settings if settings else "")
            for headers in ({}, {"HX-Request": "true"}):
                response = client.get(url, headers=headers)
                body = response.get_data(as_text=True)
                assert response.status_code == 200, (url, response.status_code)
                assert "var_smoothing below" not in body, url
                # The parity check may say scikit-learn overflows: in words, never as a number.
                assert not NAN.search(body), (url, NAN.search(body))
    data = client.get(base + "/parameters?format=json").get_json()
    assert data["error"] is None
    cells = {(c["class"], f["feature"]): f for c in data["parameters"] for f in c["features"]}
    for label in "xy":
        assert cells[(label, "a")]["mean"] == 1.7e308 and cells[(label, "a")]["variance"] == 0.0
    assert data["epsilon"] == pytest.approx(1e-9 * 35 / 12, rel=1e-15)  # var(0…5) = 35/12, from column b
    download = client.get(base + "/parameters.csv")
    assert download.status_code == 200 and "1.7e+308" in download.get_data(as_text=True)
    assert not NAN.search(download.get_data(as_text=True))


def test_a_pasted_column_of_plus_and_minus_1e308_is_refused_naming_it(tmp_path):
    app = make_app(tmp_path)
    text = "a,b,label\n" + "\n".join(f"{'-' if i % 2 else ''}1e308,{i},{'xy'[i % 2]}" for i in range(6))
    response = paste(app.test_client(), text)
    assert response.status_code == 400
    message = BeautifulSoup(response.get_data(as_text=True), "html.parser").find(id="form-error").get_text(" ")
    assert "Column 'a' runs from -1e+308" in message and "Nothing was stored." in message
    assert not NAN.search(response.get_data(as_text=True))
    assert app.extensions["webnb"]["storage"].list_corpora() == []


# --- 2. X-Forwarded-Host is trusted only when configured ------------------------------------------------------------

FORWARDED = {"X-Forwarded-Host": "evil.example", "X-Forwarded-Port": "8443", "X-Forwarded-Proto": "https",
             "X-Forwarded-For": "203.0.113.7"}


def proxied_app(tmp_path, **config):
    """An app behind one proxy, with a route that shows what the request looks like after ProxyFix."""
    from flask import request, url_for

    app = make_app(tmp_path, WEBNB_PROXIES=1, **config)

    @app.get("/_probe")
    def probe():
        return {"host": request.host, "scheme": request.scheme, "remote_addr": request.remote_addr,
                "external": url_for("corpus.index", _external=True)}

    return app


def share_link(client) -> str:
    corpus_id = stored_id(paste(client, PASTE_TEXT))
    response = client.post(f"/corpora/{corpus_id}/share?format=json", headers=FORWARDED)
    assert response.status_code == 200
    return response.get_json()["link"]


def test_by_default_a_forwarded_host_changes_no_absolute_url(tmp_path, monkeypatch):
    monkeypatch.delenv("WEBNB_PROXY_HOST", raising=False)
    app = proxied_app(tmp_path)
    client = app.test_client()
    seen = client.get("/_probe", headers=FORWARDED).get_json()
    # The client's address and the scheme are the proxy's to say; the host is the one the request was sent to.
    assert seen == {"host": "localhost", "scheme": "https", "remote_addr": "203.0.113.7",
                    "external": "https://localhost/corpora"}
    assert share_link(client).startswith("https://localhost/shared/")


@pytest.mark.parametrize("setting", [{"WEBNB_PROXY_HOST": True}, {"WEBNB_PROXY_HOST": "1"}])
def test_a_forwarded_host_is_trusted_when_configured(tmp_path, setting):
    client = proxied_app(tmp_path, **setting).test_client()
    seen = client.get("/_probe", headers=FORWARDED).get_json()
    assert seen["host"] == "evil.example:8443" and seen["external"] == "https://evil.example:8443/corpora"
    assert share_link(client).startswith("https://evil.example:8443/shared/")


@pytest.mark.parametrize("environment, host", [("1", "evil.example:8443"), ("0", "localhost"), ("", "localhost")])
def test_the_host_setting_comes_from_the_environment_too(tmp_path, monkeypatch, environment, host):
    monkeypatch.setenv("WEBNB_PROXY_HOST", environment)
    seen = proxied_app(tmp_path).test_client().get("/_probe", headers=FORWARDED).get_json()
    assert seen["host"] == host


def test_without_proxies_nothing_forwarded_counts(tmp_path, monkeypatch):
    monkeypatch.setenv("WEBNB_PROXY_HOST", "1")  # means nothing unless a proxy is declared
    app = make_app(tmp_path, WEBNB_PROXIES=0)
    client = app.test_client()
    corpus_id = stored_id(paste(client, PASTE_TEXT))
    link = client.post(f"/corpora/{corpus_id}/share?format=json", headers=FORWARDED).get_json()["link"]
    assert link.startswith("http://localhost/shared/")


# --- 3. every 4xx on webnb's own page -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url, said",
    [
        ("/corpora/china-japan/export/parameters.csv?alpha=abc", "alpha: α must be a number such as 1"),
        ("/corpora/china-japan/export/priors.csv?alpha=-1", "alpha: α must be 0 or more, not -1"),
        ("/corpora/china-japan/export/notebook.ipynb?alpha=abc", "not 'abc'"),
        ("/corpora/china-japan/export/evaluation.csv?alpha=abc", "not 'abc'"),
        ("/corpora/iris/gaussian/parameters.csv?var_smoothing=abc", "var_smoothing is 'abc'"),
    ],
)
def test_a_download_with_an_unusable_setting_answers_on_webnbs_page(client, url, said):
    response = client.get(url)
    soup, message = webnb_page(response, 400)
    assert said in message and message.endswith("Nothing was downloaded; correct the address and retry.")
    assert "could not understand" not in soup.get_text()
    assert "attachment" not in response.headers.get("Content-Disposition", "")
    twin = client.get(url, headers={"Accept": "application/json"})
    assert twin.status_code == 400 and said in twin.get_json()["error"]


def test_a_download_with_usable_settings_still_downloads(client):
    response = client.get("/corpora/china-japan/export/parameters.csv?alpha=0.5")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert response.get_data(as_text=True).startswith("word,")


def test_a_notebook_that_cannot_be_made_says_why_on_webnbs_page(client):
    _, message = webnb_page(client.get("/corpora/china-japan/export/notebook.ipynb?test=iris"), 400)
    assert message.startswith("The notebook holds one corpus")


@pytest.mark.parametrize("url, said", [
    ("/no/such/page", "There is no page at this address"),
    # An unknown corpus says it may be another workspace's, and how a corpus is shared.
    ("/corpora/no-such-corpus/parameters", "There is no corpus “no-such-corpus” here"),
    ("/corpora/no-such-table/gaussian", "There is no corpus “no-such-table” here"),
])
def test_an_unknown_address_answers_404_on_webnbs_page(client, url, said):
    soup, message = webnb_page(client.get(url), 404)
    assert said in message and "list of corpora" in message
    assert soup.h1.get_text(strip=True) == "Page not found"
    twin = client.get(url, headers={"Accept": "application/json"})
    assert twin.status_code == 404 and said in twin.get_json()["error"]


def test_a_wrong_method_answers_405_on_webnbs_page_and_keeps_allow(client):
    response = client.delete("/corpora")
    soup, message = webnb_page(response, 405)
    assert "does not take a DELETE request" in message and "Nothing was changed." in message
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "HEAD"}
    twin = client.delete("/corpora?format=json")
    assert twin.status_code == 405 and "DELETE" in twin.get_json()["error"] and "Allow" in twin.headers


def test_a_form_without_its_csrf_token_answers_on_webnbs_page(tmp_path):
    app = create_app({"TESTING": True}, instance_path=str(tmp_path / "instance"))
    _, message = webnb_page(app.test_client().post("/corpora/paste", data={"corpus": PASTE_TEXT}), 400)
    assert message == ("The form was sent without a valid security token (The CSRF token is missing), so nothing was "
                       "changed. Reload the page and send the form again.")


def test_the_pages_with_their_own_4xx_keep_them(client):
    long_address = client.get("/corpora?" + "q=" + "x" * 70_000)
    soup, message = webnb_page(long_address, 413)
    assert soup.h1.get_text(strip=True) == "The address is too long" and "bytes long" in message
    refused = client.post("/corpora/paste", data={"corpus": PASTE_TEXT}, headers={"Origin": "https://evil.example"})
    soup, message = webnb_page(refused, 403)
    assert soup.h1.get_text(strip=True) == "Refused: not from this site"
    # A Gaussian page with an unusable value is a page, with the message beside the field.
    assert client.get("/corpora/iris/gaussian/parameters?var_smoothing=abc").status_code == 200


# --- 4. a full disk is said as a full disk ---------------------------------------------------------------------------


def wrapped(cause) -> sa.exc.OperationalError:
    """``cause`` as SQLAlchemy raises it from the driver."""
    return sa.exc.OperationalError("INSERT INTO corpora …", {}, cause)


def disk_full_postgres():
    errors = pytest.importorskip("psycopg.errors")
    return errors.DiskFull("could not extend file \"base/16384/16385\": No space left on device")


def test_describe_storage_error_tells_a_full_disk_from_an_outage():
    describe = outages.describe_storage_error
    assert describe(wrapped(sqlite3.OperationalError("database or disk is full"))) == outages.DISK_FULL
    assert describe(wrapped(disk_full_postgres())) == outages.DISK_FULL
    assert describe(wrapped(sqlite3.OperationalError("unable to open database file"))) == STORAGE_UNAVAILABLE
    errors = pytest.importorskip("psycopg.errors")
    for other in (errors.TooManyConnections("too many clients"), errors.AdminShutdown("terminating connection")):
        assert describe(wrapped(other)) == STORAGE_UNAVAILABLE
    assert describe(sa.exc.TimeoutError("QueuePool limit reached")) == STORAGE_UNAVAILABLE
    assert outages.DISK_FULL == "The server's disk is full, so nothing was stored. Tell whoever runs this server."


def full_disk_on_store(app, monkeypatch, cause) -> None:
    """Storing a corpus fails as on a full disk: the fault is injected at ``Storage.add_corpus``."""
    storage = app.extensions["webnb"]["storage"]

    def add_corpus(*_args, **_kwargs):
        raise wrapped(cause)

    monkeypatch.setattr(storage, "add_corpus", add_corpus)


@pytest.mark.parametrize("driver", ["sqlite", "postgresql"])
def test_a_paste_onto_a_full_disk_says_the_disk_is_full(tmp_path, monkeypatch, driver):
    app = make_app(tmp_path)
    cause = sqlite3.OperationalError("database or disk is full") if driver == "sqlite" else disk_full_postgres()
    full_disk_on_store(app, monkeypatch, cause)
    client = app.test_client()
    response = paste(client, PASTE_TEXT)
    _, message = webnb_page(response, 507)
    assert message == outages.DISK_FULL
    assert "Retry-After" not in response.headers  # waiting does not free the disk
    body = html.unescape(response.get_data(as_text=True))
    assert "cannot reach its database" not in body and "Wait a minute" not in body
    twin = client.post("/corpora/paste?format=json", data={"corpus": PASTE_TEXT})
    assert twin.status_code == 507 and twin.get_json() == {"error": outages.DISK_FULL}
    assert app.extensions["webnb"]["storage"].list_corpora() == []


def test_an_upload_onto_a_full_disk_says_so(tmp_path, monkeypatch):
    app = make_app(tmp_path)
    full_disk_on_store(app, monkeypatch, sqlite3.OperationalError("database or disk is full"))
    data = {"file": (io.BytesIO(b"label,text\npos,great match\nneg,dull match\n"), "x.csv"), "name": "x"}
    response = app.test_client().post("/corpora/upload", data=data, content_type="multipart/form-data")
    _, message = webnb_page(response, 507)
    assert message == outages.DISK_FULL


def test_a_lost_connection_is_still_an_outage(tmp_path, monkeypatch):
    app = make_app(tmp_path)
    full_disk_on_store(app, monkeypatch, sqlite3.OperationalError("unable to open database file"))
    response = paste(app.test_client(), PASTE_TEXT)
    _, message = webnb_page(response, 503)
    assert message == STORAGE_UNAVAILABLE and response.headers["Retry-After"]

