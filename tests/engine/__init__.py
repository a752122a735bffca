"""Tests of the engine, in folders by stage as engine/ is."""
