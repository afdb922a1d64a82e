"""webnb's addresses that an LMS is given: where logins, launches and deep-linking requests go, and its key set."""
from __future__ import annotations


def tool_addresses(base_url: str) -> dict[str, str]:
    """webnb's addresses under ``base_url``."""
    base = base_url.rstrip("/")
    # An instructor's request to choose a lesson (deep linking) comes to the launch address too, as its own message.
    return {"login_url": base + "/lti/login", "launch_url": base + "/lti/launch", "jwks_url": base + "/lti/jwks.json",
            "deep_link_url": base + "/lti/launch"}
