"""mobile-r1: train and evaluate phone agents that act on a screen and know when to ask the human."""

__version__ = "0.1.0"
