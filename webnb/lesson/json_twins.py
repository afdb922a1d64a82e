"""How the JSON twins of the pages write values that JSON has no type for. The engine's records write themselves
(``to_dict()``); what is left are the settings read from an address: an exact setting (α, an ``ExactNumber``) is
written as it is in the page's links, "0.1" or "1/3", never as a rounded float."""
from __future__ import annotations

from flask.json.provider import DefaultJSONProvider

from webnb.engine.shared.numbers import ExactNumber


class JSONTwinProvider(DefaultJSONProvider):
    @staticmethod
    def default(o):
        if isinstance(o, ExactNumber):
            return str(o)
        return DefaultJSONProvider.default(o)
