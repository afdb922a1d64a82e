"""``webnb lti``: register the LMSs (platforms) that may launch webnb, list them, remove them, and rotate webnb's key.

Each command runs on the database the app serves (webnb/cli.py makes the app); what it prints is what an LMS
administrator types into the LMS, as text or as JSON (``--json``).
"""
from __future__ import annotations

import argparse
import json
from datetime import timedelta
from urllib.parse import urlsplit

from webnb.lti.addresses import tool_addresses

LTI_EXAMPLES = """examples:
  webnb lti add-platform --issuer https://moodle.example.edu --client-id aBc123 --deployment-id 1 \\
      --login-url https://moodle.example.edu/mod/lti/auth.php \\
      --token-url https://moodle.example.edu/mod/lti/token.php \\
      --keyset-url https://moodle.example.edu/mod/lti/certs.php --base-url https://webnb.example.edu
  webnb lti list --json
  webnb lti remove https://moodle.example.edu --client-id aBc123
  webnb lti rotate-key"""


def add_commands(commands, add_command, add_actions) -> None:
    """The ``lti`` command and its actions, under ``commands`` (``add_command`` and ``add_actions`` are webnb/cli.py's
    helpers)."""
    actions = add_actions(
        commands, "lti", help="let a learning management system (Moodle, Canvas, ...) launch webnb (LTI 1.3)",
        description="Register the platforms (LMSs) whose courses launch students into webnb's lessons, and print\n"
                    "the addresses and the JSON configuration to give the LMS. Needs the LTI extra:\n"
                    "pip install -e '.[lti]'.", examples=LTI_EXAMPLES)
    add = add_command(
        actions, "add-platform", help="register a platform (or one more deployment of it) and print webnb's addresses",
        examples=LTI_EXAMPLES,
        description="Register the client id a platform gave webnb, with the platform's addresses, and one deployment.\n"
                    "Run it again with another --deployment-id (or --client-id) for more: Canvas, for one, has\n"
                    "several. Prints the addresses the LMS asks for, and the configuration to paste into it.")
    add.add_argument("--issuer", required=True, metavar="ISS", help="the platform's issuer (iss), as its tokens say")
    add.add_argument("--client-id", required=True, metavar="CID", help="the client id the platform gave webnb")
    add.add_argument("--deployment-id", required=True, metavar="DID", help="the deployment id the platform gave")
    add.add_argument("--login-url", required=True, type=_address, metavar="URL",
                     help="the platform's OpenID Connect authorisation address (where logins go)")
    add.add_argument("--token-url", required=True, type=_address, metavar="URL",
                     help="the platform's OAuth 2 token address")
    add.add_argument("--keyset-url", required=True, type=_address, metavar="URL",
                     help="the platform's public key set (JWKS) address")
    add.add_argument("--base-url", default="http://127.0.0.1:5000", type=_address, metavar="URL",
                     help="where the platform reaches webnb (https in a real course; default http://127.0.0.1:5000)")
    add.add_argument("--json", action="store_true", help="print JSON instead of text")
    listing = actions.add_parser("list", help="the registered platforms and webnb's keys")
    listing.add_argument("--json", action="store_true", help="print JSON instead of text")
    remove = actions.add_parser("remove", help="remove a platform's registration, or one deployment of it")
    remove.add_argument("issuer", metavar="ISS")
    remove.add_argument("--client-id", default=None, metavar="CID", help="only this client id's registration")
    remove.add_argument("--deployment-id", default=None, metavar="DID", help="only this deployment")
    invite = actions.add_parser(
        "registration-url", help="print a one-time address through which an LMS registers itself (LTI Dynamic "
                                 "Registration: Moodle's \"Tool URL\" under \"Add tool\", Canvas's "
                                 "\"LTI Registration\")")
    invite.add_argument("--base-url", default="http://127.0.0.1:5000", type=_address, metavar="URL",
                        help="where the LMS reaches webnb (default http://127.0.0.1:5000)")
    invite.add_argument("--hours", type=_registration_hours, default=24.0,
                        help="how long the address stays valid (default 24)")
    actions.add_parser("rotate-key", help="make a new signing key; the old one stays published until withdrawn")
    withdraw = actions.add_parser("withdraw-key", help="stop publishing an older key (never the signing one)")
    withdraw.add_argument("kid", metavar="KID")


def _registration_hours(text: str) -> float:
    try:
        hours = float(text)
    except ValueError:
        hours = float("nan")
    if not 0 < hours <= 24 * 30:  # also refuses nan
        raise argparse.ArgumentTypeError(f"give a number of hours above 0 and at most {24 * 30}, such as 24")
    return hours


def _address(text: str) -> str:
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise argparse.ArgumentTypeError(f"expected an http or https address, such as https://lms.example.edu/..., "
                                         f"not {text[:80]!r}")
    return text.strip()


def moodle_configuration(addresses: dict[str, str]) -> dict[str, str]:
    """The fields of Moodle's "Configure a tool manually" form, by their labels."""
    return {"Tool URL": addresses["launch_url"], "LTI version": "LTI 1.3", "Public key type": "Keyset URL",
            "Public keyset": addresses["jwks_url"], "Initiate login URL": addresses["login_url"],
            "Redirection URI(s)": addresses["launch_url"],
            "Supports Deep Linking (Content-Item Message)": "yes",
            "Content Selection URL": addresses["deep_link_url"],
            "IMS LTI Assignment and Grade Services": "Use this service for grade sync only",
            "IMS LTI Names and Role Provisioning": "Use this service to retrieve members' information as per "
                                                   "privacy settings"}


def canvas_configuration(addresses: dict[str, str]) -> dict:
    """Canvas's developer key configuration (Developer Keys, + LTI Key, Method: Paste JSON)."""
    domain = urlsplit(addresses["launch_url"]).hostname or ""
    return {
        "title": "webnb",
        "description": "Naive Bayes text classification, taught by showing every number.",
        "oidc_initiation_url": addresses["login_url"],
        "target_link_uri": addresses["launch_url"],
        "public_jwk_url": addresses["jwks_url"],
        # Grades back to the course, and its list of members for the instructor.
        "scopes": ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
                   "https://purl.imsglobal.org/spec/lti-ags/scope/score",
                   "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"],
        "extensions": [{
            "platform": "canvas.instructure.com",
            "domain": domain,
            # A launch needs no more than the subject id for a workspace; names, for the instructor's list of
            # members, which the roster service leaves out at "anonymous". No e-mail addresses.
            "privacy_level": "name_only",
            "settings": {"placements": [
                {"placement": "course_navigation", "message_type": "LtiResourceLinkRequest",
                 "target_link_uri": addresses["launch_url"], "text": "webnb"},
                # Choosing a lesson for a module item or an assignment: deep linking.
                *({"placement": placement, "message_type": "LtiDeepLinkingRequest",
                   "target_link_uri": addresses["deep_link_url"], "text": "webnb lesson"}
                  for placement in ("link_selection", "assignment_selection")),
            ]},
        }],
        "custom_fields": {},
    }


def run(app, args, out) -> int:
    """One ``webnb lti`` action on ``app``'s database."""
    from webnb.lti import available

    if not available():
        print("webnb lti: the LTI library is not installed. Install the extra: pip install -e '.[lti]'. "
              "Nothing was changed.", file=_stderr())
        return 2
    from webnb.lti import adapter
    from webnb.lti.registry import Invitation, Registry

    registry = Registry(app.extensions["webnb"]["storage"])
    if args.action == "add-platform":
        return _add_platform(registry, args, out)
    if args.action == "list":
        return _list(registry, args, out)
    if args.action == "remove":
        removed = registry.remove(args.issuer, args.client_id, args.deployment_id)
        if not removed:
            print(f"webnb lti: nothing registered matches {args.issuer!r}"
                  + (f", client id {args.client_id!r}" if args.client_id else "")
                  + (f", deployment {args.deployment_id!r}" if args.deployment_id else "")
                  + ". Nothing was changed.", file=_stderr())
            return 2
        for line in removed:
            print(f"Removed {line}.", file=out)
        return 0
    if args.action == "registration-url":
        ticket = registry.open(Invitation(), timedelta(hours=args.hours))
        address = args.base_url.rstrip("/") + f"/lti/register/{ticket}"
        print(f"Give this address to the LMS's dynamic registration (once, within {args.hours:g} hours):\n  {address}\n"
              "The LMS then registers webnb, and webnb keeps the client id and deployment it gives.", file=out)
        return 0
    if args.action == "rotate-key":
        adapter.signing_key(registry)
        kid = adapter.rotate_key(registry)
        print(f"webnb now signs with the key {kid}. The older keys stay in /lti/jwks.json until withdrawn with "
              "`webnb lti withdraw-key KID`, once the platforms have fetched the new set.", file=out)
        return 0
    if registry.withdraw_key(args.kid):
        print(f"Withdrew the key {args.kid}: it is no longer published.", file=out)
        return 0
    signing = registry.keys()[0][0] if registry.keys() else None
    why = "it is the signing key; rotate first" if args.kid == signing else "no published key has that kid"
    print(f"webnb lti: cannot withdraw {args.kid!r}: {why}. Nothing was changed.", file=_stderr())
    return 2


def _add_platform(registry, args, out) -> int:
    from webnb.lti import adapter

    platform, changed = registry.add_platform(
        issuer=args.issuer, client_id=args.client_id, deployment_id=args.deployment_id, login_url=args.login_url,
        token_url=args.token_url, keyset_url=args.keyset_url)
    kid, _ = adapter.signing_key(registry)  # made once, with the first platform
    addresses = tool_addresses(args.base_url)
    report = {"issuer": platform.issuer, "client_id": platform.client_id, "deployments": list(platform.deployments),
              "changed": changed, **addresses, "kid": kid, "moodle": moodle_configuration(addresses),
              "canvas": canvas_configuration(addresses)}
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False), file=out)
        return 0
    done = "Registered" if changed else "Already registered, unchanged:"
    print(f"{done} client {platform.client_id} at {platform.issuer}, deployments: "
          f"{', '.join(platform.deployments)}.", file=out)
    print("\nGive the platform webnb's addresses:", file=out)
    for name, label in (("login_url", "OpenID Connect login initiation"), ("launch_url", "launch (redirection URI)"),
                        ("jwks_url", "public key set (JWKS)"),
                        ("deep_link_url", "deep linking: an instructor chooses a lesson")):
        print(f"  {name}: {addresses[name]}    {label}", file=out)
    if urlsplit(args.base_url).scheme != "https":
        print("\n  Note: LMSs launch tools over https only; give --base-url the https address students reach.",
              file=out)
    print("\nMoodle (Site administration > Plugins > External tool > Manage tools > configure a tool manually):",
          file=out)
    for label, value in report["moodle"].items():
        print(f"  {label}: {value}", file=out)
    print("\nCanvas (Admin > Developer Keys > + Developer Key > + LTI Key > Method: Paste JSON):", file=out)
    print(json.dumps(report["canvas"], indent=2), file=out)
    return 0


def _list(registry, args, out) -> int:
    platforms = registry.platforms()
    kids = [kid for kid, _ in registry.keys()]
    if args.json:
        print(json.dumps({"platforms": [
            {"issuer": p.issuer, "client_id": p.client_id, "deployments": list(p.deployments), "login_url": p.login_url,
             "token_url": p.token_url, "keyset_url": p.keyset_url} for p in platforms],
            "keys": [{"kid": kid, "signing": index == 0} for index, kid in enumerate(kids)]}, indent=2), file=out)
        return 0
    if not platforms:
        print("No platform is registered. Register one with `webnb lti add-platform`.", file=out)
    for platform in platforms:
        print(f"{platform.issuer}  client {platform.client_id}  deployments: {', '.join(platform.deployments) or '-'}",
              file=out)
    for index, kid in enumerate(kids):
        print(f"key {kid}" + ("  (signing)" if index == 0 else "  (published, no longer signing)"), file=out)
    return 0


def _stderr():
    import sys

    return sys.stderr
