"""Where the cells' output goes when they are imported as modules rather than run in a notebook.

A notebook shows what its cells print. Imported on their own (by the tests, or by whatever imports every module of
the engine and reads the standard output), the cells must not write to the process's standard output: each cell file
that prints imports this ``print``, which writes to ``OUTPUT`` instead, where a test can read it.
"""
import builtins
import io

OUTPUT = io.StringIO()


def print(*values, sep=" ", end="\n"):
    """The built-in ``print``, writing to ``OUTPUT``."""
    builtins.print(*values, sep=sep, end=end, file=OUTPUT)
