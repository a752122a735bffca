"""Tests of engine/pdf/, as the code is laid out."""
