"""Tests of api/, as the code is laid out."""
