"""The one module that speaks to the LTI library (``pylti1p3next``, imported as ``pylti1p3``): swapping the library
means rewriting this file and nothing else.

webnb gives the library its registrations and keys from the database (webnb/lti/registry.py). A login's state is
signed by webnb and its nonce derived from it (:class:`LoginStates`), so that a launch in an LMS's iframe needs no
cookie and a login keeps nothing on the server: only a launch that passed every check writes its state, once. It
runs the library's checks one at a time, in its own order, so that a refused launch can say which check failed
(:class:`LaunchRefused`); it adds the checks the library leaves out: the audience as a list and the authorised party,
a nonce used once, and the platform's key set fetched again when a token names a key it does not hold.
"""
from __future__ import annotations

import contextlib
import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit

import jwt
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from itsdangerous import BadData, URLSafeSerializer
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.cookie import CookieService
from pylti1p3.deep_link import DeepLink
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.deployment import Deployment
from pylti1p3.dynamic_registration import DynamicRegistration
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.registration import Registration
from pylti1p3.request import Request
from pylti1p3.service_connector import ServiceConnector
from pylti1p3.session import SessionService
from pylti1p3.tool_config import ToolConfAbstract

from webnb.lti.registry import LOGIN_MINUTES, DeepLinking, Grading, Login, Platform, Registry, Score

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
GRADES_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
ROSTER_SERVICE = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
# How long a platform's key set is kept before it is fetched again (a token naming an unknown key fetches it at once).
KEYSET_SECONDS = 3600

# The checks a launch must pass, in the order webnb runs them, and what each one is about. A refused launch names one.
CHECKS = {
    "registration": "the platform and the client id it gave webnb are registered with webnb",
    "login hint": "the login carries the platform's login_hint",
    "format": "the id_token is a signed JSON Web Token",
    "state": "the launch answers a login that webnb began, less than ten minutes ago",
    "nonce": "the launch is the first use of that login's nonce",
    "issuer": "the token comes from the platform the login was for",
    "audience": "the token is addressed to webnb's client id at that platform",
    "signature": "the platform's own key signed the token",
    "expired": "the token has not expired",
    "issued at": "the token was issued, not dated in the future",
    "deployment": "the deployment is one registered with webnb",
    "role": "the user may do what the launch asks: only a course's instructors choose its lessons",
    "message": "the message is an LTI 1.3 launch of a resource link (or an instructor's request to choose one), with "
               "a user and roles",
}


class LaunchRefused(Exception):
    """A launch or login that failed ``check`` (a key of :data:`CHECKS`, or a login's own), with why."""

    def __init__(self, check: str, reason: str):
        super().__init__(f"{check}: {reason}")
        self.check = check
        self.reason = reason


@dataclass(frozen=True)
class Launch:
    """A launch that passed every check: who launched, from where, into what."""

    platform_id: int
    issuer: str
    client_id: str
    deployment_id: str
    subject: str
    instructor: bool
    target_link_uri: str
    custom: Mapping[str, str] = field(default_factory=dict)
    resource_title: str = ""
    # An instructor's request to choose a lesson for the course (deep linking): the platform's settings for it.
    deep_linking: Mapping | None = None
    # A graded activity (AGS): the column its student's answers go to. None: this launch grades nothing.
    grading: Grading | None = None
    # The LMS's course: its id and title, and where its members are listed (NRPS), when the platform offers it.
    context_id: str | None = None
    context_title: str = ""
    memberships_url: str | None = None


@dataclass(frozen=True)
class LessonLink:
    """What deep linking sends back to the course: a link that launches ``url`` (absolute) with ``custom``."""

    title: str
    url: str
    custom: Mapping[str, str]
    # Graded: the gradebook column the LMS makes for it, out of this many points (None: not graded).
    score_maximum: float | None = None


# --- webnb's keys ---------------------------------------------------------------------------------------------------


def new_tool_key() -> tuple[str, str]:
    """A new RSA key for webnb: (its kid, the private key in PEM)."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    return public_jwk(pem)["kid"], pem


def public_jwk(private_pem: str) -> dict:
    """The public half of a key, as the JWK that webnb's key set publishes (RS256, for signatures, its thumbprint as
    kid: the kid the library writes in what it signs)."""
    return dict(Registration.get_jwk(_public_pem(private_pem)))


def _public_pem(private_pem: str) -> str:
    private = serialization.load_pem_private_key(private_pem.encode(), password=None)
    return private.public_key().public_bytes(serialization.Encoding.PEM,
                                             serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def signing_key(registry: Registry) -> tuple[str, str]:
    """webnb's signing key (kid, private PEM), made the first time it is asked for."""
    published = registry.keys()
    if not published:
        registry.add_key(*new_tool_key())
        published = registry.keys()
    return published[0]


def rotate_key(registry: Registry) -> str:
    """A new signing key; the older ones stay published. Its kid."""
    kid, pem = new_tool_key()
    registry.add_key(kid, pem)
    return kid


def key_set(registry: Registry) -> dict:
    """webnb's JWKS: every published key, the signing one first."""
    signing_key(registry)
    return {"keys": [public_jwk(pem) for _, pem in registry.keys()]}


# --- the platforms' key sets ----------------------------------------------------------------------------------------


class KeySets:
    """The platforms' key sets, fetched over ``http`` (a ``requests.Session``) and kept ``KEYSET_SECONDS``."""

    def __init__(self, http: requests.Session, clock=time.monotonic):
        self.http = http
        self.clock = clock
        self._kept: dict[str, tuple[float, dict]] = {}
        self._lock = threading.Lock()

    def get(self, url: str, *, fresh: bool = False) -> dict:
        with self._lock:
            kept = self._kept.get(url)
        if kept is not None and not fresh and self.clock() - kept[0] < KEYSET_SECONDS:
            return kept[1]
        try:
            answer = self.http.get(url, timeout=10)
            answer.raise_for_status()
            keyset = answer.json()
        except (requests.RequestException, ValueError) as error:
            raise LaunchRefused("signature", f"webnb could not read the platform's key set at {url} "
                                             f"({type(error).__name__}).") from error
        if not isinstance(keyset, dict) or not isinstance(keyset.get("keys"), list):
            raise LaunchRefused("signature", f"the platform's key set at {url} holds no list of keys.")
        with self._lock:
            self._kept[url] = (self.clock(), keyset)
        return keyset


# --- what the library is given --------------------------------------------------------------------------------------


class _Params(Request):
    """The login's or launch's parameters, as the library reads them."""

    def __init__(self, params: Mapping[str, str], secure: bool):
        super().__init__()
        self._params = params
        self._secure = secure

    @property
    def session(self):  # webnb keeps nothing of a login in the browser's session
        return {}

    def get_param(self, key: str):
        return self._params.get(key)

    def is_secure(self) -> bool:
        return self._secure


class _NoCookies(CookieService):
    """The state is signed by webnb (:class:`LoginStates`), so the library's state cookie is never set or read."""

    def get_cookie(self, name: str):
        return None

    def set_cookie(self, name: str, value, exp=3600):
        return None


class _Registrations(ToolConfAbstract):
    """The registry as the library's tool configuration; every issuer may have several client ids."""

    def __init__(self, registry: Registry, signing: tuple[str, str] | None = None):
        super().__init__()
        self.registry = registry
        self.signing = signing

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def find_registration_by_issuer(self, iss: str, *args, **kwargs):
        return self.find_registration_by_params(iss, None)

    def find_registration_by_params(self, iss: str, client_id, *args, **kwargs):
        platform = self.registry.find(iss, client_id)
        return None if platform is None else self.registration(platform)

    def registration(self, platform: Platform) -> Registration:
        registration = (Registration().set_issuer(platform.issuer).set_client_id(platform.client_id)
                        .set_auth_login_url(platform.login_url).set_auth_token_url(platform.token_url)
                        .set_key_set_url(platform.keyset_url))
        if self.signing is not None:
            registration.set_tool_private_key(self.signing[1])
            registration.set_tool_public_key(_public_pem(self.signing[1]))
        return registration

    def find_deployment(self, iss: str, deployment_id: str):
        return None  # every issuer has many client ids here: the library asks find_deployment_by_params

    def find_deployment_by_params(self, iss: str, deployment_id: str, client_id: str, *args, **kwargs):
        platform = self.registry.find(iss, client_id)
        if platform is None or deployment_id not in platform.deployments:
            return None
        return Deployment().set_deployment_id(deployment_id)


class _Redirect(Redirect):
    def __init__(self, location: str):
        self.location = location

    def do_redirect(self):
        return self.location

    def do_js_redirect(self):
        return self.location

    def set_redirect_url(self, location: str):
        self.location = location

    def get_redirect_url(self) -> str:
        return self.location


class _Login(OIDCLogin):
    """The library's login, with webnb's signed state and the nonce bound to it in place of random ones that the
    library would keep in a session or a cookie."""

    def __init__(self, request: _Params, registrations: _Registrations, state: str, nonce: str):
        # The library saves the nonce in the request's session, which is thrown away (_Params.session).
        super().__init__(request, registrations, session_service=SessionService(request), cookie_service=_NoCookies())
        self._state, self._nonce = state, nonce

    def _get_uuid(self) -> str:
        return self._state.removeprefix(STATE_PREFIX)  # the library writes the prefix before it

    def _generate_nonce(self) -> str:
        return self._nonce

    def get_redirect(self, url: str):
        return _Redirect(url)


class _Launch(MessageLaunch):
    """The library's launch, with the client id taken from the login (not the audience's first entry) and the
    platform's key set from :class:`KeySets`, fetched again for a key it does not hold."""

    def __init__(self, params: _Params, registrations: _Registrations, keysets: KeySets, client_id: str):
        super().__init__(params, registrations, session_service=SessionService(params), cookie_service=_NoCookies())
        self.keysets = keysets
        self.client_id = client_id
        # The audience is checked before the signature (a list too, with its authorised party); exp and iat are
        # required, not only checked when present.
        self.set_jwt_verify_options({"verify_aud": False, "require": ["exp", "iat"]})
        self.set_auto_validation(enable=False)  # webnb runs the checks itself, one at a time

    def body(self) -> Mapping:
        """The token's claims, read (not yet trusted) once its format is checked."""
        return self._jwt.get("body") or {}

    def _get_request_param(self, key: str):
        return self._request.get_param(key)

    def get_client_id(self) -> str:
        return self.client_id

    def fetch_public_key(self, key_set_url: str):
        return self.keysets.get(key_set_url)

    def get_public_key(self):
        try:
            return super().get_public_key()
        except LtiException:
            # A key the platform added since the key set was kept: fetch it once more, then give up.
            self._registration.set_key_set(self.keysets.get(self._registration.get_key_set_url(), fresh=True))
            return super().get_public_key()


# --- login and launch -----------------------------------------------------------------------------------------------


class LoginStates:
    """Each login's state and nonce, made by webnb and kept nowhere. The state is signed with the app's secret key
    and says which platform the login is for and until when (where it leads is the token's own claim); the nonce is
    the state's HMAC, so that the two are bound together without a row. Logins cost no storage, however many anyone
    sends: only a launch that passed every check keeps its state (:meth:`Registry.use_login`), once, which is what
    refuses a replay."""

    def __init__(self, secret_key: str | bytes, *, clock=None):
        key = secret_key.encode() if isinstance(secret_key, str) else secret_key
        self._serializer = URLSafeSerializer(key, salt="webnb lti login state")
        self._nonce_key = hmac.new(key, b"webnb lti login nonce", hashlib.sha256).digest()
        self.clock = clock or (lambda: datetime.now(timezone.utc))

    def issue(self, platform_id: int) -> tuple[str, str]:
        """A new login's (state, nonce), for ``LOGIN_MINUTES``. The state is short whatever the login asks for."""
        expires = self.clock() + timedelta(minutes=LOGIN_MINUTES)
        token = self._serializer.dumps([platform_id, int(expires.timestamp()), secrets.token_hex(16)])
        state = STATE_PREFIX + token
        return state, self._nonce_of(state)

    def read(self, state: str | None) -> Login:
        """The login a launch's ``state`` answers; raises :class:`LaunchRefused` (check "state") for a state webnb
        did not sign, or one older than ``LOGIN_MINUTES``."""
        if not state:
            raise LaunchRefused("state", "the launch carries no state.")
        try:
            platform, expires, _ = self._serializer.loads(state.removeprefix(STATE_PREFIX))
            expires_at = datetime.fromtimestamp(expires, timezone.utc)
        except (BadData, ValueError, TypeError, OverflowError):
            raise LaunchRefused("state", "webnb began no login with this state.") from None
        if expires_at < self.clock():
            raise LaunchRefused("state", "the login began more than ten minutes ago; launch again from the course.")
        return Login(state, self._nonce_of(state), platform, expires_at)

    def _nonce_of(self, state: str) -> str:
        return hmac.new(self._nonce_key, state.encode(), hashlib.sha256).hexdigest()


STATE_PREFIX = "state-"  # what the library writes before a state


def login_redirect(params: Mapping[str, str], registry: Registry, states: LoginStates, launch_url: str, *,
                   secure: bool) -> str:
    """Where to send the browser for the platform's login that ``params`` began (OIDC third-party initiated login):
    the platform's login address with webnb's signed state and its nonce; nothing is stored. Raises
    :class:`LaunchRefused` for a login webnb cannot answer."""
    issuer, hint = params.get("iss"), params.get("login_hint")
    if not issuer:
        raise LaunchRefused("registration", "the login names no issuer (iss).")
    if not hint:
        raise LaunchRefused("login hint", "the login carries no login_hint for the platform.")
    platform = registry.find(issuer, params.get("client_id") or None)
    if platform is None:
        which = f"client id {params['client_id']!r} at " if params.get("client_id") else ""
        raise LaunchRefused("registration", f"no platform is registered for {which}{issuer!r} "
                                      "(or it has several client ids and the login did not say which).")
    deployment = params.get("lti_deployment_id")
    if deployment and deployment not in platform.deployments:
        raise LaunchRefused("deployment", f"the deployment {deployment!r} is not registered with webnb.")
    request = _Params(params, secure)
    login = _Login(request, _Registrations(registry), *states.issue(platform.id))
    try:
        return login.get_redirect_object(launch_url).get_redirect_url()
    except OIDCException as error:
        raise LaunchRefused("registration", str(error)) from error


def validate_launch(params: Mapping[str, str], registry: Registry, states: LoginStates, keysets: KeySets, *,
                    secure: bool) -> Launch:
    """The launch ``params`` (``id_token`` and ``state``) checked as :data:`CHECKS` lists; the login is kept as used
    only when every check passed, so that a refused launch changes nothing. Raises :class:`LaunchRefused`."""
    login = states.read(params.get("state"))
    platform = registry.platform(login.platform)
    if platform is None:
        raise LaunchRefused("registration", "the platform of this login is no longer registered.")
    launch = _Launch(_Params(params, secure), _Registrations(registry), keysets, platform.client_id)
    _check("format", launch.validate_jwt_format)
    body = launch.body()
    if body.get("iss") != platform.issuer:
        raise LaunchRefused("issuer", f"the token comes from {body.get('iss')!r}, the login was for "
                                      f"{platform.issuer!r}.")
    _check_audience(body, platform.client_id)
    _check("audience", launch.validate_registration)
    _check_signature(launch)
    if body.get("nonce") != login.nonce:
        raise LaunchRefused("nonce", "the token's nonce is not the one webnb sent with this login.")
    _check("deployment", launch.validate_deployment)
    _check("message", launch.validate_message)
    message_type = body.get(CLAIM + "message_type")
    deep_linking = _deep_linking(body, launch) if message_type == DEEP_LINKING_REQUEST else None
    if message_type not in (RESOURCE_LINK_REQUEST, DEEP_LINKING_REQUEST):
        raise LaunchRefused("message", f"webnb takes launches of a resource link ({RESOURCE_LINK_REQUEST}) and "
                                       f"requests to choose one ({DEEP_LINKING_REQUEST}), not {message_type!r}.")
    # Where the launch leads is the token's own claim (LTI 1.3 requires it, the same as the login's).
    target_link_uri = str(body.get(CLAIM + "target_link_uri") or "")
    if not registry.use_login(login, target_link_uri):
        raise LaunchRefused("nonce", "this launch was used already: a token is good for one launch.")
    custom = body.get(CLAIM + "custom") or {}
    return Launch(
        platform_id=platform.id, issuer=platform.issuer, client_id=platform.client_id,
        deployment_id=body[CLAIM + "deployment_id"],
        subject=str(body["sub"]), instructor=launch.check_teacher_access(),
        target_link_uri=target_link_uri,
        custom={str(key): str(value) for key, value in custom.items()} if isinstance(custom, Mapping) else {},
        resource_title=str((body.get(CLAIM + "resource_link") or {}).get("title") or ""),
        deep_linking=deep_linking, grading=_grading(body, custom), context_id=_context(body).get("id"),
        context_title=str(_context(body).get("title") or ""),
        memberships_url=(body.get(ROSTER_SERVICE) or {}).get("context_memberships_url") or None,
    )


def _context(body: Mapping) -> Mapping:
    context = body.get(CLAIM + "context")
    return context if isinstance(context, Mapping) else {}


def _grading(body: Mapping, custom) -> Grading | None:
    """The column a launch's answers are graded in: its AGS line item, when webnb may post scores to it. Its
    maximum is the custom ``score_maximum`` that webnb's deep linking set, else 1 (the LMS scales a score by
    ``scoreGiven / scoreMaximum``)."""
    endpoint = body.get(GRADES_ENDPOINT)
    if not isinstance(endpoint, Mapping) or not endpoint.get("lineitem"):
        return None
    if SCORE_SCOPE not in (endpoint.get("scope") or []):
        return None
    try:
        maximum = float(custom.get("score_maximum", 1)) if isinstance(custom, Mapping) else 1.0
    except ValueError:
        maximum = 1.0
    if not 0 < maximum < float("inf"):
        maximum = 1.0
    return Grading(str(endpoint["lineitem"]), maximum, _context(body).get("id"))


class ServiceFailed(Exception):
    """A request to the platform's services (grades, roster) that it did not answer as asked, with why."""


class ScoreNotSent(ServiceFailed):
    """A score the platform did not take (or could not be reached for), with why."""


class _Tokens(ServiceConnector):
    """The library's service connector with its access tokens kept in ``kept`` (one dict per app), until they
    expire."""

    def __init__(self, registration: Registration, http: requests.Session, kept: dict):
        super().__init__(registration, http)
        self.kept = kept

    def _get_cached_access_token(self, scope_key: str):
        token, expires = self.kept.get(scope_key, (None, 0.0))
        return token if time.monotonic() < expires else None

    def _cache_access_token(self, scope_key: str, access_token: str, expires_in: float):
        # A minute early, so that a token is never sent as it expires.
        self.kept[scope_key] = (access_token, time.monotonic() + float(expires_in or 0) - 60)


@dataclass(frozen=True)
class Member:
    """One member of a course, as the LMS lists it."""

    user_id: str
    name: str
    roles: tuple[str, ...]
    status: str


def course_members(registry: Registry, http: requests.Session, tokens: dict, platform_id: int,
                   memberships_url: str) -> list[Member]:
    """The course's members (NRPS), every page of them, with an access token for the roster's scope. Raises
    :class:`ServiceFailed` when the platform does not answer."""
    platform = registry.platform(platform_id)
    if platform is None:
        raise ServiceFailed("the platform is no longer registered")
    registration = _Registrations(registry, signing_key(registry)).registration(platform)
    roster = NamesRolesProvisioningService(_Tokens(registration, http, tokens),
                                           {"context_memberships_url": memberships_url})
    try:
        listed = roster.get_members()
    except (LtiException, requests.RequestException, ValueError) as error:
        raise ServiceFailed(str(error) or type(error).__name__) from error
    return [Member(str(member.get("user_id", "")), str(member.get("name") or ""),
                   tuple(role.rsplit("#", 1)[-1] for role in member.get("roles") or ()),
                   str(member.get("status") or "Active")) for member in listed]


TOOL_SCOPES = ("https://purl.imsglobal.org/spec/lti-ags/scope/lineitem", SCORE_SCOPE,
               "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly")
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"


class _Registering(DynamicRegistration):
    """webnb as the library's dynamically registered tool: its addresses, scopes and messages."""

    client_name = "webnb"
    description = "Naive Bayes text classification, taught by showing every number."

    def __init__(self, http: requests.Session, addresses: Mapping[str, str], openid_configuration: str,
                 registration_token: str | None):
        self.http, self.addresses = http, addresses
        self.openid_configuration, self.registration_token = openid_configuration, registration_token

    def get_request_session(self):
        return contextlib.nullcontext(self.http)  # the app's session, which the library must not close

    def get_initiate_login_uri(self) -> str:
        return self.addresses["login_url"]

    def get_jwks_uri(self) -> str:
        return self.addresses["jwks_url"]

    def get_redirect_uris(self) -> list[str]:
        return [self.addresses["launch_url"]]

    def get_scopes(self) -> list[str]:
        return list(TOOL_SCOPES)

    def get_domain(self) -> str:
        return urlsplit(self.addresses["launch_url"]).netloc

    def get_target_link_uri(self) -> str:
        return self.addresses["launch_url"]

    def get_claims(self) -> list[str]:
        return ["iss", "sub"]

    def get_messages(self) -> list[dict]:
        return [{"type": DEEP_LINKING_REQUEST, "target_link_uri": self.addresses["deep_link_url"],
                 "label": "webnb lesson"}]

    def get_logo_uri(self) -> str:
        return ""

    def lti_registration_data(self) -> dict:
        data = super().lti_registration_data()
        data.pop("logo_uri")  # webnb has no logo
        return data

    def get_openid_configuration_endpoint(self) -> str:
        return self.openid_configuration

    def get_registration_token(self) -> str | None:
        return self.registration_token

    def complete_registration(self, openid_configuration: dict, openid_registration: dict) -> dict:
        tool = openid_registration[TOOL_CONFIGURATION]
        return {"issuer": openid_configuration["issuer"], "client_id": openid_registration["client_id"],
                "deployment_id": tool["deployment_id"], "login_url": openid_configuration["authorization_endpoint"],
                "token_url": openid_configuration["token_endpoint"], "keyset_url": openid_configuration["jwks_uri"]}


def register_platform(registry: Registry, http: requests.Session, addresses: Mapping[str, str],
                      openid_configuration: str, registration_token: str | None) -> Platform:
    """LTI Dynamic Registration: read the platform's OpenID configuration, register webnb with it (its addresses,
    scopes and deep linking), and keep the client id and deployment it gives. Raises :class:`ServiceFailed`."""
    if urlsplit(openid_configuration).scheme not in ("http", "https"):
        raise ServiceFailed("the openid_configuration address is not an http(s) address")
    try:
        found = _Registering(http, addresses, openid_configuration, registration_token).register()
    except (LtiException, AssertionError, KeyError, TypeError, ValueError, requests.RequestException) as error:
        raise ServiceFailed(str(error) or f"the platform's answer lacks {type(error).__name__}") from error
    addresses_given = [found[name] for name in ("login_url", "token_url", "keyset_url")]
    if any(urlsplit(str(address)).scheme not in ("http", "https") for address in addresses_given):
        raise ServiceFailed("the platform's configuration has an address that is not http(s)")
    platform, _ = registry.add_platform(**{name: str(value) for name, value in found.items()})
    return platform


def post_score(registry: Registry, http: requests.Session, tokens: dict, score: Score) -> None:
    """Send ``score`` to its column (AGS): an access token by webnb's signed client assertion (OAuth 2 client
    credentials, the score scope), then the Score. Raises :class:`ScoreNotSent`."""
    platform = registry.platform(score.platform)
    if platform is None:
        raise ScoreNotSent("the platform is no longer registered")
    registration = _Registrations(registry, signing_key(registry)).registration(platform)
    grades = AssignmentsGradesService(_Tokens(registration, http, tokens),
                                      {"scope": [SCORE_SCOPE], "lineitem": score.lineitem})
    grade = (Grade().set_user_id(score.subject).set_score_given(score.score_given)
             .set_score_maximum(score.score_maximum).set_timestamp(score.scored_at.isoformat())
             .set_activity_progress("Completed").set_grading_progress("FullyGraded"))
    try:
        grades.put_grade(grade)
    except (LtiException, requests.RequestException) as error:  # the library's message names the HTTP status
        raise ScoreNotSent(str(error) or type(error).__name__) from error


def _deep_linking(body: Mapping, launch: _Launch) -> dict:
    """The settings of a request to choose a lesson, which only a course's instructor (or content developer) makes,
    and which must accept a resource link."""
    settings = body.get(DEEP_LINKING_SETTINGS) or {}
    if urlsplit(str(settings.get("deep_link_return_url") or "")).scheme not in ("http", "https"):
        raise LaunchRefused("message", "the request to choose a lesson has no http(s) deep_link_return_url.")
    if "ltiResourceLink" not in (settings.get("accept_types") or []):
        raise LaunchRefused("message", "the course asks for a kind of content webnb does not make: it accepts "
                                       f"{settings.get('accept_types')!r}, webnb makes lesson links (ltiResourceLink).")
    if not (launch.check_teacher_access() or launch.check_designer_access()):
        raise LaunchRefused("role", "only a course's instructors choose its lessons, and this user is not one.")
    return dict(settings)


def deep_link_answer(registry: Registry, choice: DeepLinking, link: LessonLink) -> str:
    """The signed answer to a request to choose a lesson (an LtiDeepLinkingResponse JWT with one resource link),
    signed with webnb's key, for the form that posts it to the course's ``deep_link_return_url``."""
    platform = registry.platform(choice.platform)
    if platform is None:
        raise LaunchRefused("registration", "the platform of this request is no longer registered.")
    registration = _Registrations(registry, signing_key(registry)).registration(platform)
    resource = (DeepLinkResource().set_type("ltiResourceLink").set_title(link.title).set_url(link.url)
                .set_custom_params(dict(link.custom)))
    if link.score_maximum is not None:
        resource.set_lineitem(LineItem().set_score_maximum(link.score_maximum).set_label(link.title).set_tag("webnb"))
    return DeepLink(registration, choice.deployment_id, choice.settings).get_response_jwt([resource])


def _check(name: str, step) -> None:
    try:
        step()
    except LtiException as error:
        raise LaunchRefused(name, str(error)) from error


def _check_audience(body: Mapping, client_id: str) -> None:
    audience = body.get("aud")
    listed = audience if isinstance(audience, list) else [audience]
    if client_id not in listed:
        raise LaunchRefused("audience", f"the token is addressed to {audience!r}, not to webnb's client id "
                                        f"{client_id!r}.")
    party = body.get("azp")
    if (len(listed) > 1 or party is not None) and party != client_id:
        raise LaunchRefused("audience", f"the token's authorised party (azp) is {party!r}, not webnb's client id "
                                        f"{client_id!r}.")


def _check_signature(launch: _Launch) -> None:
    try:
        launch.validate_jwt_signature()
    except LaunchRefused:
        raise
    except LtiException as error:
        cause = error.__cause__
        if isinstance(cause, jwt.ExpiredSignatureError):
            raise LaunchRefused("expired", "the token has expired.") from error
        if isinstance(cause, jwt.ImmatureSignatureError):
            raise LaunchRefused("issued at", "the token is dated in the future.") from error
        if isinstance(cause, jwt.MissingRequiredClaimError):
            check = "expired" if cause.claim == "exp" else "issued at"
            raise LaunchRefused(check, f"the token has no {cause.claim!r} claim.") from error
        raise LaunchRefused("signature", f"the token's signature does not verify ({error}).") from error


