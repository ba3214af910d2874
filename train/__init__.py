"""Training, evaluation and reports (``make train``, arriving with the Lunatix Loop envs)."""
