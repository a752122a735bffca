"""Tests of workbench/notebook/, as the code is laid out."""
