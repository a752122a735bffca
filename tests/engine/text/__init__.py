"""Tests of engine/text/, as the code is laid out."""
