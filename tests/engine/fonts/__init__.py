"""Tests of engine/fonts/, as the code is laid out."""
