"""Tests of engine/design/, as the code is laid out."""
