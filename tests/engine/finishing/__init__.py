"""Tests of engine/finishing/, as the code is laid out."""
