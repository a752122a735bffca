"""Tests of workbench/web/, as the code is laid out."""
