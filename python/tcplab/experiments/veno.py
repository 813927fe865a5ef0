"""Experiments of this paper are added by their own module (see fahmy.py for the pattern)."""
