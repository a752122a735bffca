"""Tests of api/renderers/, as the code is laid out."""
