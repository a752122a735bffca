"""Tests of engine/render/, as the code is laid out."""
