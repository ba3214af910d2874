"""The former name of :mod:`train.train` (kept for old command lines):
``python -m train.train_lunatix`` runs the same script with the same default config."""

from train.train import *  # noqa: F403
from train.train import main

if __name__ == "__main__":
    main()
