"""A fake LMS (an LTI 1.3 platform) for the tests: its own RSA keys, its key set served in-process to webnb's HTTP
session (no network), and the two cross-site posts a real platform makes: the login initiation and the launch with a
signed id_token. What it sends can be changed claim by claim, to test each check webnb makes."""
from __future__ import annotations

import functools
import json
import time
import uuid
from urllib.parse import parse_qs, urlsplit

import jwt
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
GRADES_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
ROSTER_SERVICE = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
TOOL = "https://webnb.test"  # where the platform reaches webnb (https, as every LMS requires)
DROP = object()  # a claim given this value is left out of the token


@functools.cache
def rsa_key(name: str):
    """One RSA key per name for the whole run: making one takes a tenth of a second."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_jwk(key, kid: str) -> dict:
    jwk = jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
    return {**jwk, "kid": kid, "alg": "RS256", "use": "sig"}


class FakePlatform(requests.adapters.BaseAdapter):
    """An LMS at ``issuer``: mounted on webnb's HTTP session, it answers the key set requests itself."""

    def __init__(self, issuer: str = "https://lms.example.test", client_id: str = "webnb-client",
                 deployment_id: str = "deployment-1"):
        super().__init__()
        self.issuer, self.client_id, self.deployment_id = issuer, client_id, deployment_id
        self.keys = {"platform-key-1": rsa_key("platform-1")}  # kid -> private key, as the key set publishes
        self.keyset_requests = 0
        self.token_requests: list[dict] = []  # the forms posted to the token address
        self.score_posts: list[dict] = []  # {"url", "headers", "body"} of every Score posted
        self.failing_score_posts = 0  # the next this many Score posts answer 503
        self.members: list[dict] = []  # the course's members, as the roster service lists them
        self.roster_requests: list[dict] = []  # the headers of each request for them
        self.registrations: list[dict] = []  # {"headers", "body"} of each dynamic registration posted
        self.registration_fails = False  # the registration endpoint answers 500

    # -- its addresses, and its key set served to webnb ----------------------------------------------------------

    @property
    def login_url(self) -> str:
        return self.issuer + "/auth"

    @property
    def token_url(self) -> str:
        return self.issuer + "/token"

    @property
    def keyset_url(self) -> str:
        return self.issuer + "/jwks"

    def send(self, request, **kwargs):
        response = requests.Response()
        response.request, response.url = request, request.url
        if request.url == self.keyset_url:
            self.keyset_requests += 1
            response.status_code = 200
            response._content = json.dumps({"keys": [public_jwk(key, kid) for kid, key in self.keys.items()]}).encode()
            response.headers["Content-Type"] = "application/json"
        elif request.url == self.token_url and request.method == "POST":
            self.token_requests.append({name: values[0] for name, values in parse_qs(request.body).items()})
            response.status_code = 200
            response._content = json.dumps({"access_token": f"token-{len(self.token_requests)}",
                                            "token_type": "Bearer", "expires_in": 3600}).encode()
        elif request.url == self.issuer + "/.well-known/openid-configuration":
            response.status_code = 200
            response._content = json.dumps({
                "issuer": self.issuer, "authorization_endpoint": self.login_url, "token_endpoint": self.token_url,
                "jwks_uri": self.keyset_url, "registration_endpoint": self.issuer + "/register",
                "https://purl.imsglobal.org/spec/lti-platform-configuration": {
                    "product_family_code": "fake-lms", "version": "1.0",
                    "messages_supported": [{"type": "LtiResourceLinkRequest"}, {"type": "LtiDeepLinkingRequest"}]},
            }).encode()
        elif request.url == self.issuer + "/register" and request.method == "POST":
            self.registrations.append({"headers": dict(request.headers), "body": json.loads(request.body)})
            if self.registration_fails:
                response.status_code, response._content = 500, b"{}"
            else:
                response.status_code = 200
                response._content = json.dumps({
                    "client_id": self.client_id, **json.loads(request.body),
                    "https://purl.imsglobal.org/spec/lti-tool-configuration": {
                        **json.loads(request.body)["https://purl.imsglobal.org/spec/lti-tool-configuration"],
                        "deployment_id": self.deployment_id}}).encode()
        elif request.url == self.memberships_url:
            self.roster_requests.append(dict(request.headers))
            response.status_code = 200
            response._content = json.dumps({"id": self.memberships_url, "context": {"id": "course-1"},
                                            "members": self.members}).encode()
        elif request.url.startswith(self.lineitem_url) and request.method == "POST":
            self.score_posts.append({"url": request.url, "headers": dict(request.headers),
                                     "body": json.loads(request.body)})
            if self.failing_score_posts:
                self.failing_score_posts -= 1
                response.status_code, response._content = 503, b"busy"
            else:
                response.status_code, response._content = 200, b"{}"
        else:
            response.status_code, response._content = 404, b"{}"
        return response

    def close(self):
        pass

    @property
    def memberships_url(self) -> str:
        return self.issuer + "/api/courses/1/memberships"

    def roster_claims(self, **changes) -> dict:
        return {ROSTER_SERVICE: {"context_memberships_url": self.memberships_url, "service_versions": ["2.0"]},
                **changes}

    @property
    def lineitem_url(self) -> str:
        return self.issuer + "/api/lineitems/7/lineitem"

    def grading_claims(self, score_maximum: str = "10", **changes) -> dict:
        """The claims of a graded activity's launch: its AGS line item, and the maximum webnb's deep linking set."""
        return {GRADES_ENDPOINT: {"scope": [SCORE_SCOPE, "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"],
                                  "lineitem": self.lineitem_url, "lineitems": self.issuer + "/api/lineitems"},
                "custom": {"score_maximum": score_maximum}, **changes}

    def install(self, app) -> "FakePlatform":
        """Register this platform with ``app`` and serve its key set to the app's HTTP session."""
        app.extensions["webnb_lti"].keysets.http.mount(self.issuer + "/", self)
        app.extensions["webnb_lti"].registry.add_platform(
            issuer=self.issuer, client_id=self.client_id, deployment_id=self.deployment_id, login_url=self.login_url,
            token_url=self.token_url, keyset_url=self.keyset_url)
        return self

    # -- what it sends -------------------------------------------------------------------------------------------

    def cross_site(self) -> dict:
        """The headers of a browser posting from the platform's page to webnb."""
        return {"Origin": self.issuer, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate",
                "Sec-Fetch-Dest": "document"}

    def login_params(self, **changes) -> dict:
        params = {"iss": self.issuer, "login_hint": "hint-42", "target_link_uri": TOOL + "/lti/launch",
                  "lti_message_hint": "message+hint/ünï=1&x", "client_id": self.client_id,
                  "lti_deployment_id": self.deployment_id, **changes}
        return {name: value for name, value in params.items() if value is not DROP}

    def begin_login(self, client, method: str = "POST", headers: dict | None = None, **changes):
        """The login initiation; its response (webnb's redirect to the platform's login address)."""
        params = self.login_params(**changes)
        sent = {"headers": {**self.cross_site(), **(headers or {})}, "base_url": TOOL}
        if method == "GET":
            return client.get("/lti/login", query_string=params, **sent)
        return client.post("/lti/login", data=params, **sent)

    def claims(self, nonce: str, *, sub: str = "student-1", roles=(LEARNER,), now: float | None = None,
               **changes) -> dict:
        now = time.time() if now is None else now
        body = {
            "iss": self.issuer, "aud": self.client_id, "sub": sub, "iat": int(now), "exp": int(now) + 300,
            "nonce": nonce, "azp": self.client_id,
            CLAIM + "message_type": "LtiResourceLinkRequest", CLAIM + "version": "1.3.0",
            CLAIM + "deployment_id": self.deployment_id, CLAIM + "target_link_uri": TOOL + "/lti/launch",
            CLAIM + "resource_link": {"id": "resource-7", "title": "Naive Bayes: spam or ham"},
            CLAIM + "roles": list(roles),
            CLAIM + "context": {"id": "course-1", "title": "Machine learning 101"},
        }
        changes = {"sub": sub, **changes}
        for name, value in changes.items():
            name = {"message_type": CLAIM + "message_type", "version": CLAIM + "version",
                    "deployment_id": CLAIM + "deployment_id", "target_link_uri": CLAIM + "target_link_uri",
                    "custom": CLAIM + "custom", "resource_link": CLAIM + "resource_link"}.get(name, name)
            if value is DROP:
                body.pop(name, None)
            else:
                body[name] = value
        return body

    def deep_linking_claims(self, **changes) -> dict:
        """The claims of an instructor's request to choose a lesson (LtiDeepLinkingRequest)."""
        settings = {"deep_link_return_url": self.issuer + "/deep-link-return?course=1",
                    "accept_types": ["ltiResourceLink"], "accept_presentation_document_targets": ["iframe", "window"],
                    "data": "opaque-data-42"}
        return {"message_type": "LtiDeepLinkingRequest", "resource_link": DROP, "roles": (INSTRUCTOR,),
                "sub": "teacher-1", DEEP_LINKING_SETTINGS: settings, **changes}

    def sign(self, body: dict, *, kid: str = "platform-key-1", key=None, algorithm: str = "RS256") -> str:
        return jwt.encode(body, key or self.keys[kid], algorithm=algorithm, headers={"kid": kid})

    def launch(self, client, *, state: str | None = None, token: str | None = None, kid: str = "platform-key-1",
               key=None, **claims):
        """Login, then launch: the launch's response. ``state``, ``token``: sent instead of the real ones; ``key``:
        signs instead of the platform's key named ``kid``; other keywords change the token's claims."""
        redirect = self.begin_login(client)
        assert redirect.status_code in (302, 303), redirect.get_data(as_text=True)[:500]
        sent = parse_qs(urlsplit(redirect.headers["Location"]).query)
        real_state, nonce = sent["state"][0], sent["nonce"][0]
        if token is None:
            token = self.sign(self.claims(nonce, **claims), kid=kid, key=key)
        self.last = {"state": real_state, "nonce": nonce, "token": token}
        return self.post_launch(client, state or real_state, token)

    def post_launch(self, client, state: str, token: str):
        return client.post("/lti/launch", data={"id_token": token, "state": state}, headers=self.cross_site(),
                           base_url=TOOL)


def new_nonce() -> str:
    return uuid.uuid4().hex
