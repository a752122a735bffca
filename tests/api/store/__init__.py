"""Tests of api/store/, as the code is laid out."""
