"""Tests of engine/actions/, as the code is laid out."""
