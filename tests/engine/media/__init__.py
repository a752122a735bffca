"""Tests of engine/media/, as the code is laid out."""
