"""Tests of workbench/client/, as the code is laid out."""
