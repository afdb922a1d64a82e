"""Records into plain data (webnb/engine/shared/plain.py): a record whose ``to_dict()`` only writes its fields
as they are says so with ``plain(self)``; a hand-written ``to_dict()`` is left for records that rename, leave
out or derive."""
from __future__ import annotations

import ast
from fractions import Fraction

import numpy as np
from conftest import REPO_ROOT

from webnb.engine.shared.plain import plain, plain_value
from webnb.engine.text.bag import VocabularyOptions

# How a hand-written to_dict writes a field "as it is", by the conventions plain applies.
AS_IT_IS = ("self.{0}", "number(self.{0})", "list(self.{0})", "fraction_text(self.{0})", "self.{0}.to_dict()")


def copies_only_its_fields(cls: ast.ClassDef, method: ast.FunctionDef) -> bool:
    body = [node for node in method.body if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Dict):
        return False
    fields = [node.target.id for node in cls.body
              if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)]
    written = body[0].value
    keys = [key.value if isinstance(key, ast.Constant) else None for key in written.keys]
    if sorted(map(str, keys)) != sorted(fields):
        return False
    for key, value in zip(keys, written.values, strict=True):
        source = ast.unparse(value)
        listed = source.startswith("[") and ".to_dict() for " in source and source.endswith(f" in self.{key}]")
        if source not in [form.format(key) for form in AS_IT_IS] and not listed:
            return False
    return True


def test_no_to_dict_copies_its_fields_by_hand():
    by_hand = []
    for path in sorted((REPO_ROOT / "webnb").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
            for method in cls.body:
                written_by_hand = isinstance(method, ast.FunctionDef) and method.name == "to_dict"
                if written_by_hand and copies_only_its_fields(cls, method):
                    by_hand.append(f"{path.relative_to(REPO_ROOT)}: {cls.name}")
    assert by_hand == []


def test_the_rule_finds_a_to_dict_written_by_hand():
    source = '''
class Point:
    word: str
    log_probability: float
    def to_dict(self):
        return {"word": self.word, "log_probability": number(self.log_probability)}
'''
    cls = ast.parse(source).body[0]
    assert copies_only_its_fields(cls, cls.body[-1])


def test_plain_writes_each_value_by_the_engine_conventions():
    assert plain(VocabularyOptions(min_df=2, max_df=0.5)) == {
        "min_df": 2, "max_df": 0.5, "max_features": None, "binary": False}
    assert plain_value(np.int64(7)) == 7 and type(plain_value(np.int64(7))) is int
    assert plain_value(np.float64("-inf")) == "-inf"
    assert plain_value(Fraction(6, 14)) == "3/7"
    assert plain_value((1, (2.5, None))) == [1, [2.5, None]]
    assert plain_value({"a": Fraction(1, 2)}) == {"a": "1/2"}
    assert plain_value(True) is True  # a boolean is not written as the whole number 1
