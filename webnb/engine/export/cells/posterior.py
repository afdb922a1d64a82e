"""Section 6 of the text notebook: from the log joints to the posterior with log-sum-exp, and the decision."""
from webnb.engine.export.cells.corpus import CLASSES
from webnb.engine.export.cells.imports import math
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.trace import review_log_joint

# ---- notebook cell ----
finite = [v for v in review_log_joint if v > -math.inf]
if not finite:
    posterior, decision = None, None
    print("Every class has probability 0: the model cannot decide.")
else:
    shift = max(finite)
    log_evidence = shift + math.log(math.fsum(math.exp(v - shift) for v in finite))
    posterior = [math.exp(v - log_evidence) for v in review_log_joint]
    decision = CLASSES[[k for k, v in enumerate(review_log_joint) if v == shift][0]]
    print(f"max log joint m = {shift:.10g}; log evidence = {log_evidence:.10g}")
    for label, p in zip(CLASSES, posterior):
        print(f"  P({label} | review) = {p:.6g}")
    print(f"Decision: {decision!r}")
