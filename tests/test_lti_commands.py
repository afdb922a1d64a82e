"""``webnb lti``: registering a platform prints what the LMS asks for; list, remove, and webnb's key rotated with the
old key still published; what the app does without the LTI extra."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("pylti1p3", reason="the LTI extra is not installed (pip install -e '.[lti]')")

MOODLE = ["--issuer", "https://moodle.example.edu", "--client-id", "aBc123", "--deployment-id", "1",
          "--login-url", "https://moodle.example.edu/mod/lti/auth.php",
          "--token-url", "https://moodle.example.edu/mod/lti/token.php",
          "--keyset-url", "https://moodle.example.edu/mod/lti/certs.php"]
BASE = ["--base-url", "https://webnb.example.edu/"]


def test_add_platform_prints_webnbs_addresses_and_the_configuration_for_moodle_and_canvas(app, webnb, client):
    code, out, err = webnb(app, "lti", "add-platform", *MOODLE, *BASE, "--json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert {name: report[name] for name in ("issuer", "client_id", "deployments", "login_url", "launch_url",
                                            "jwks_url", "deep_link_url")} == {
        "issuer": "https://moodle.example.edu", "client_id": "aBc123", "deployments": ["1"],
        "login_url": "https://webnb.example.edu/lti/login", "launch_url": "https://webnb.example.edu/lti/launch",
        "jwks_url": "https://webnb.example.edu/lti/jwks.json", "deep_link_url": "https://webnb.example.edu/lti/launch"}
    assert report["moodle"]["Initiate login URL"] == report["login_url"]
    assert report["moodle"]["Redirection URI(s)"] == report["launch_url"]
    canvas = report["canvas"]
    assert (canvas["oidc_initiation_url"], canvas["target_link_uri"], canvas["public_jwk_url"]) == (
        report["login_url"], report["launch_url"], report["jwks_url"])
    assert [(placement["placement"], placement["message_type"])
            for placement in canvas["extensions"][0]["settings"]["placements"]] == [
        ("course_navigation", "LtiResourceLinkRequest"), ("link_selection", "LtiDeepLinkingRequest"),
        ("assignment_selection", "LtiDeepLinkingRequest")]
    # Every address printed is one the app answers: the key set at once, the login and launch as routes.
    assert client.get("/lti/jwks.json").json["keys"][0]["kid"] == report["kid"]
    routes = {rule.rule: rule.methods for rule in app.url_map.iter_rules()}
    assert {"GET", "POST"} <= routes["/lti/login"] and "POST" in routes["/lti/launch"]


def test_add_platform_in_text_says_what_to_type_where(app, webnb):
    code, out, _ = webnb(app, "lti", "add-platform", *MOODLE)
    assert code == 0
    assert "Registered client aBc123 at https://moodle.example.edu, deployments: 1." in out
    assert "  launch_url: http://127.0.0.1:5000/lti/launch" in out
    assert "LMSs launch tools over https only" in out  # the default base address is the laptop's
    assert '"oidc_initiation_url": "http://127.0.0.1:5000/lti/login"' in out


def test_several_deployments_and_client_ids_per_issuer_and_removing_them(app, webnb):
    webnb(app, "lti", "add-platform", *MOODLE)
    code, out, _ = webnb(app, "lti", "add-platform", *MOODLE)
    assert code == 0 and out.startswith("Already registered, unchanged:")
    webnb(app, "lti", "add-platform", *MOODLE[:4], "--deployment-id", "2", *MOODLE[6:])
    webnb(app, "lti", "add-platform", *MOODLE[:2], "--client-id", "second", *MOODLE[4:])
    listed = json.loads(webnb(app, "lti", "list", "--json")[1])
    assert [(p["client_id"], p["deployments"]) for p in listed["platforms"]] == [("aBc123", ["1", "2"]),
                                                                               ("second", ["1"])]
    code, out, _ = webnb(app, "lti", "remove", "https://moodle.example.edu", "--client-id", "aBc123",
                         "--deployment-id", "1")
    assert (code, out) == (0, "Removed deployment 1 of client aBc123 at https://moodle.example.edu.\n")
    code, out, _ = webnb(app, "lti", "remove", "https://moodle.example.edu")
    assert code == 0 and out.count("Removed client") == 2
    code, out, err = webnb(app, "lti", "remove", "https://moodle.example.edu")
    assert (code, out) == (2, "") and "nothing registered matches" in err
    assert webnb(app, "lti", "list")[1].startswith("No platform is registered.")


def test_a_rotated_key_signs_and_the_old_one_stays_published_until_withdrawn(app, webnb, client):
    webnb(app, "lti", "add-platform", *MOODLE)
    (old,) = [key["kid"] for key in client.get("/lti/jwks.json").json["keys"]]
    code, out, _ = webnb(app, "lti", "rotate-key")
    new = app.extensions["webnb_lti"].registry.keys()[0][0]
    assert code == 0 and out.startswith(f"webnb now signs with the key {new}.") and new != old
    assert [key["kid"] for key in client.get("/lti/jwks.json").json["keys"]] == [new, old]
    code, _, err = webnb(app, "lti", "withdraw-key", new)
    assert code == 2 and "it is the signing key" in err
    assert webnb(app, "lti", "withdraw-key", old)[0] == 0
    assert [key["kid"] for key in client.get("/lti/jwks.json").json["keys"]] == [new]


def test_a_key_whose_kid_begins_with_a_dash_is_withdrawn_as_any_other(app, webnb, client):
    """A kid is a base64url thumbprint, so about one in 64 begins with "-": argparse must not take it for an option."""
    webnb(app, "lti", "add-platform", *MOODLE)
    registry = app.extensions["webnb_lti"].registry
    (signing,) = [kid for kid, _ in registry.keys()]
    dashed = "-" + signing[1:]
    registry.add_key(dashed, registry.keys()[0][1])
    assert webnb(app, "lti", "rotate-key")[0] == 0  # the dashed key is now an older one, still published
    newest = registry.keys()[0][0]
    assert sorted(kid for kid, _ in registry.keys()) == sorted([newest, dashed, signing])
    code, out, err = webnb(app, "lti", "withdraw-key", dashed)
    assert code == 0, err
    assert sorted(kid for kid, _ in registry.keys()) == sorted([newest, signing])
    with pytest.raises(SystemExit) as asked_for_help:  # "--help" still asks for help
        webnb(app, "lti", "withdraw-key", "--help")
    assert asked_for_help.value.code == 0


@pytest.mark.parametrize("option", ["--login-url", "--token-url", "--keyset-url", "--base-url"])
def test_add_platform_refuses_an_address_that_is_not_http(app, webnb, option):
    argv = [*MOODLE, *BASE]
    argv[argv.index(option) + 1] = "moodle.example.edu/auth"
    with pytest.raises(SystemExit):
        webnb(app, "lti", "add-platform", *argv)


def test_without_the_lti_extra_the_app_has_no_lti_routes_and_the_command_says_what_to_install(
        tmp_path, monkeypatch, webnb):
    from webnb import create_app

    monkeypatch.setattr("webnb.lti.available", lambda: False)
    app = create_app({"TESTING": True}, instance_path=str(tmp_path / "instance"))
    try:
        assert app.test_client().get("/lti/jwks.json").status_code == 404
        code, out, err = webnb(app, "lti", "list")
        assert (code, out) == (2, "") and "pip install -e '.[lti]'" in err
        assert "frame-ancestors 'none'" in app.test_client().get("/").headers["Content-Security-Policy"]
    finally:
        app.extensions["webnb"]["storage"].dispose()


def test_an_lms_registers_itself_through_a_one_time_address(app, webnb, client):
    from lti_platform import FakePlatform

    platform = FakePlatform(issuer="https://moodle.dynamic.test", client_id="dynamic-client",
                            deployment_id="dynamic-deployment")
    app.extensions["webnb_lti"].keysets.http.mount(platform.issuer + "/", platform)
    code, out, _ = webnb(app, "lti", "registration-url", "--base-url", "https://webnb.example.edu")
    assert code == 0
    address = out.split()[out.split().index("hours):") + 1]
    assert address.startswith("https://webnb.example.edu/lti/register/")
    path = address.removeprefix("https://webnb.example.edu")
    assert client.get(path).status_code == 400  # not opened by an LMS
    opened = {"openid_configuration": platform.issuer + "/.well-known/openid-configuration",
              "registration_token": "reg-token-1"}
    platform.registration_fails = True
    failed = client.get(path, query_string=opened)
    assert failed.status_code == 502 and app.extensions["webnb_lti"].registry.platforms() == []
    platform.registration_fails = False
    registered = client.get(path, query_string=opened, base_url="https://webnb.example.edu")
    assert registered.status_code == 200, registered.get_data(as_text=True)[:500]
    assert "frame-ancestors 'self' https://moodle.dynamic.test" in registered.headers["Content-Security-Policy"]
    (platform_kept,) = app.extensions["webnb_lti"].registry.platforms()
    assert (platform_kept.issuer, platform_kept.client_id, platform_kept.deployments, platform_kept.login_url,
            platform_kept.token_url, platform_kept.keyset_url) == (
        platform.issuer, "dynamic-client", ("dynamic-deployment",), platform.login_url, platform.token_url,
        platform.keyset_url)
    sent = platform.registrations[-1]
    assert sent["headers"]["Authorization"] == "Bearer reg-token-1"
    body = sent["body"]
    assert (body["initiate_login_uri"], body["redirect_uris"], body["jwks_uri"]) == (
        "https://webnb.example.edu/lti/login", ["https://webnb.example.edu/lti/launch"],
        "https://webnb.example.edu/lti/jwks.json")
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in body["scope"].split()
    tool = body["https://purl.imsglobal.org/spec/lti-tool-configuration"]
    assert tool["domain"] == "webnb.example.edu"
    assert tool["messages"] == [{"type": "LtiDeepLinkingRequest", "target_link_uri": "https://webnb.example.edu/lti/launch",
                                 "label": "webnb lesson"}]
    assert client.get(path, query_string=opened).status_code == 410  # once
    assert client.get("/lti/register/not-a-ticket", query_string=opened).status_code == 410
