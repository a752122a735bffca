"""Tests of workbench/editor/, as the code is laid out."""
