"""Training, evaluation and reports (``make train``, arriving with the Lunatix Loop envs)."""

import os

# torch's OpenMP threads sleep instead of spinning when they wait: with 2 update threads on
# 2 cores that also run env workers (or other programs), spinning threads made the gradient
# updates up to 5x slower. Read when torch loads OpenMP, so set before importing torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
