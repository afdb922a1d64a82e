"""How both text notebooks write a ratio as the lesson's pages do, unreduced (``show``). The notebook holds it at
the top of its parameters cell."""
from webnb.engine.export.cells.imports import Fraction


# ---- notebook cell ----
def show(ratio):
    """'2/3', or '(1/2)/3' when α makes a part fractional."""
    def part(x):
        x = Fraction(x)
        return str(x.numerator) if x.denominator == 1 else f"({x})"
    return f"{part(ratio[0])}/{part(ratio[1])}"
