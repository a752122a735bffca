"""Tests of engine/elements/, as the code is laid out."""
