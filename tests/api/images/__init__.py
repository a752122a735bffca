"""Tests of api/images/, as the code is laid out."""
