"""The four notations of the lecture notes for the same parameters; pages show the one in the URL."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Notation:
    key: str
    title: str
    prior: str  # the symbol of the class prior
    bernoulli: str  # P(word present | class)
    multinomial: str  # P(a drawn word is this word | class)
    pseudo_count: str  # the smoothing pseudo-count
    functional: bool = False  # written P̂(word | class) instead of a symbol with subscripts

    def word(self, model: str) -> str:
        return self.bernoulli if model == "bernoulli" else self.multinomial


# Each text model's name in a sentence ("the multinomial model"); capitalised where a line starts with it.
MODEL_NAMES = {"bernoulli": "Bernoulli", "multinomial": "multinomial", "complement": "Complement"}


def model_name(kind: str, capital: bool = False) -> str:
    """The name a page writes for the model ``kind``: "Bernoulli", "multinomial" (or "Multinomial") or
    "Complement"."""
    name = MODEL_NAMES[kind]
    return name[0].upper() + name[1:] if capital else name


NOTATIONS = {
    "phi-psi": Notation("phi-psi", "φ and ψ", "φ", "ψ", "θ", "α"),
    "pi-theta": Notation("pi-theta", "π and θ", "π", "θ", "θ", "α"),
    "p-hat": Notation("p-hat", "P̂(c) and P̂(t | c)", "P̂", "P̂", "P̂", "α", functional=True),
    # This notation spends α on the word probabilities, so the pseudo-count is γ.
    "beta-alpha": Notation("beta-alpha", "β and α", "β", "α", "α", "γ"),
}
