"""Tests of the workbench, in folders by face as workbench/ is."""
