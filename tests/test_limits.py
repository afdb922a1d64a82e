"""Request limits: a long address, a large form field and a large upload each answer 413 with a message that
says which, store nothing and never end in a 500. The defaults are in webnb/hosting/security.py and the README."""
from __future__ import annotations

import http.client
import io
import select

import pytest
from bs4 import BeautifulSoup
from conftest import serving

from webnb import create_app
from webnb.hosting.security import size_text

MB = 1024 * 1024
BOUNDARY = "webnb-test-boundary"
REVIEW_100_KB = "sharp " * (100_000 // 6)  # 100,000 characters


def make_app(tmp_path, **config):
    return create_app(
        {"TESTING": True, "WTF_CSRF_ENABLED": False, **config}, instance_path=str(tmp_path / "instance")
    )


def stored(app) -> list:
    return app.extensions["webnb"]["storage"].list_corpora()


def form_body(fields: dict, multipart: bool) -> dict:
    """Keyword arguments for a test-client POST of these text fields. Multipart bodies are encoded here, in
    memory: Werkzeug's test client spools big ones to a temporary file that it never closes."""
    if not multipart:
        return {"data": fields, "content_type": "application/x-www-form-urlencoded"}
    parts = [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
        for name, value in fields.items()
    ]
    body = ("".join(parts) + f"--{BOUNDARY}--\r\n").encode()
    return {"data": body, "content_type": f"multipart/form-data; boundary={BOUNDARY}"}


def alert_text(response) -> str:
    alert = BeautifulSoup(response.get_data(as_text=True), "html.parser").find(role="alert")
    return " ".join(alert.get_text().split())


def test_the_defaults(app):
    assert app.config["WEBNB_MAX_QUERY_BYTES"] == 65_536
    assert app.config["MAX_FORM_MEMORY_SIZE"] == 500_000
    assert app.config["MAX_CONTENT_LENGTH"] == 50 * MB


def test_a_config_overrides_the_defaults(tmp_path):
    app = make_app(tmp_path, WEBNB_MAX_QUERY_BYTES=100, MAX_FORM_MEMORY_SIZE=1000)
    assert app.config["WEBNB_MAX_QUERY_BYTES"] == 100 and app.config["MAX_FORM_MEMORY_SIZE"] == 1000
    client = app.test_client()
    assert client.get("/corpora/match-reviews/inference?text=" + "a" * 90).status_code == 200
    assert client.get("/corpora/match-reviews/inference?text=" + "a" * 96).status_code == 413


@pytest.mark.parametrize("size, text", [
    (50 * MB, "50 MB"), (10 * MB, "10 MB"), (MB + MB // 2, "1.5 MB"), (500_000, "500 KB"), (20_000, "20 KB"),
    (999, "999 bytes"),
])
def test_sizes_are_said_as_people_say_them(size, text):
    assert size_text(size) == text


# -- the address --------------------------------------------------------------------------------------


def test_a_100_kb_review_in_the_address_is_413_with_a_message(client):
    response = client.get("/corpora/match-reviews/inference", query_string={"text": REVIEW_100_KB})
    assert response.status_code == 413
    message = alert_text(response)
    query_bytes = len("text=") + len(REVIEW_100_KB.replace(" ", "+"))
    assert f"The address of this page is {query_bytes:,} bytes long; the server takes at most 65,536." in message
    assert "Shorten the review" in message
    assert "file" not in message


def test_the_address_limit_counts_bytes_of_the_query(client):
    # 65,536 bytes of query are fine (the state then reports the review as too long), one more is not.
    at_limit = "text=" + "a" * (65_536 - len("text="))
    assert client.get(f"/corpora/match-reviews/inference?{at_limit}").status_code == 200
    assert client.get(f"/corpora/match-reviews/inference?{at_limit}a").status_code == 413


def test_a_review_the_state_accepts_fits_in_the_address(client):
    """5,000 characters (the state's limit) of plain text travel well under the address limit."""
    response = client.get("/corpora/match-reviews/inference", query_string={"text": "not sharp " * 500})
    assert response.status_code == 200


def test_a_long_address_answers_json_to_a_json_client(client):
    response = client.get("/corpora/match-reviews/parameters", query_string={"format": "json", "text": REVIEW_100_KB})
    assert response.status_code == 413 and response.is_json
    assert "bytes long; the server takes at most 65,536" in response.json["error"]


def test_a_long_address_is_refused_on_a_post_too(app, client):
    response = client.post(
        "/corpora/match-reviews/add/keep", query_string={"text": REVIEW_100_KB},
        data={"label": "negative", "document": "not sharp"},
    )
    assert response.status_code == 413
    assert stored(app) == []


# -- form fields --------------------------------------------------------------------------------------


@pytest.mark.parametrize("multipart", [False, True])
def test_a_review_over_the_form_limit_is_413(tmp_path, multipart):
    """The brief's case: a 100 KB review POSTed as a form field, here against a 50 KB field limit."""
    app = make_app(tmp_path, MAX_FORM_MEMORY_SIZE=50_000)
    client = app.test_client()
    response = client.post(
        "/corpora/match-reviews/add/keep", **form_body({"label": "negative", "document": REVIEW_100_KB}, multipart)
    )
    assert response.status_code == 413
    message = alert_text(response)
    assert "The text sent with the form is larger than the limit of 50 KB." in message
    assert "upload it as a file" in message and "Nothing was stored." in message
    assert stored(app) == []


@pytest.mark.parametrize("multipart", [False, True])
def test_the_default_form_limit(app, client, multipart):
    """Past 500 KB a field is refused before the view sees it; a 100 KB review is under it, and the view
    itself refuses it, as it refuses anything over 5,000 characters."""
    url = "/corpora/match-reviews/add/keep"
    huge = client.post(url, **form_body({"label": "negative", "document": "x" * 600_000}, multipart))
    assert huge.status_code == 413
    assert "larger than the limit of 500 KB" in alert_text(huge)
    review = client.post(url, **form_body({"label": "negative", "document": REVIEW_100_KB}, multipart))
    assert review.status_code == 400
    assert "The document is 99,996 characters long; the limit is 5,000." in alert_text(review)
    assert stored(app) == []


def test_a_paste_over_the_form_limit_says_to_upload_a_file(app, client):
    corpus = "\n".join(f"positive,document number {i} was sharp" for i in range(20_000))  # ~ 700 KB
    response = client.post("/corpora/paste", data={"name": "Big", "corpus": corpus})
    assert response.status_code == 413
    assert "To add a bigger corpus, upload it as a file." in alert_text(response)
    assert stored(app) == []


# -- files --------------------------------------------------------------------------------------------


def test_a_file_over_the_limit_is_413_in_the_test_client(tmp_path):
    app = make_app(tmp_path, MAX_CONTENT_LENGTH=100_000)  # a body under 500 KB, which the test client keeps in memory
    response = app.test_client().post(
        "/corpora/upload", data={"file": (io.BytesIO(b"label,text\n" * 20_000), "big.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 413
    assert "The file is larger than the limit of 100 KB." in alert_text(response)
    assert stored(app) == []


def multipart_head(filename: str) -> bytes:
    return (
        f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\n"
        "Content-Type: text/csv\r\n\r\n"
    ).encode()


class BodyReadCounter:
    """WSGI middleware: counts the bytes of the request body the app reads."""

    def __init__(self, wsgi_app):
        self.wsgi_app, self.read = wsgi_app, 0

    def __call__(self, environ, start_response):
        environ["wsgi.input"] = CountingStream(environ["wsgi.input"], self)
        return self.wsgi_app(environ, start_response)


class CountingStream:
    def __init__(self, stream, counter: BodyReadCounter):
        self.stream, self.counter = stream, counter

    def read(self, *args):
        data = self.stream.read(*args)
        self.counter.read += len(data)
        return data

    def readline(self, *args):
        data = self.stream.readline(*args)
        self.counter.read += len(data)
        return data

    def __getattr__(self, name):
        return getattr(self.stream, name)


@pytest.mark.slow  # about 1 s
def test_a_50_mb_upload_against_a_10_mb_limit_is_refused_at_once(tmp_path):
    """Through a real socket, with an honest Content-Length: the answer comes from the headers alone, without a
    byte of the body read, and before the body is sent."""
    app = make_app(tmp_path, MAX_CONTENT_LENGTH=10 * MB)
    body_read = BodyReadCounter(app.wsgi_app)
    app.wsgi_app = body_read
    head = multipart_head("big.csv")
    tail = f"\r\n--{BOUNDARY}--\r\n".encode()
    body_size = 50 * MB
    chunk = b"positive,keeper was sharp and composed\n" * 1600  # ~ 62 KB
    with serving(app) as url:
        host, port = url.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.putrequest("POST", "/corpora/upload")
        connection.putheader("Content-Type", f"multipart/form-data; boundary={BOUNDARY}")
        connection.putheader("Content-Length", str(len(head) + body_size + len(tail)))
        connection.endheaders()
        connection.send(head)
        sent = 0
        # Send until the server answers (the socket turns readable) or the whole body is gone.
        while sent < body_size:
            readable, _, _ = select.select([connection.sock], [], [], 0)
            if readable:
                break
            piece = chunk[: body_size - sent]
            try:
                connection.send(piece)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(piece)
        response = connection.getresponse()
        page = response.read().decode()
        connection.close()
    assert response.status == 413
    assert body_read.read == 0, f"the app read {body_read.read:,} bytes of the body before refusing it"
    assert sent < body_size, f"the whole body ({sent:,} bytes) was sent before the answer"
    alert = BeautifulSoup(page, "html.parser").find(role="alert")
    assert "The file is larger than the limit of 10 MB." in alert.get_text()
    assert response.getheader("Content-Security-Policy") is not None
    assert stored(app) == []
    print(f"413 after {sent:,} of {body_size:,} bytes of the body were sent")


def test_a_file_just_under_the_limit_is_read(tmp_path):
    app = make_app(tmp_path, MAX_CONTENT_LENGTH=1 * MB)
    rows = "label,text\n" + "positive,keeper was sharp\nnegative,match was dull\n" * 100
    response = app.test_client().post(
        "/corpora/upload", data={"file": (io.BytesIO(rows.encode()), "small.csv"), "name": "Small"},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303
    assert [summary.name for summary in stored(app)] == ["Small"]
