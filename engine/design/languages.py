"""The design's language as the default of its texts' language (extensions.md 6: text data
`lang` … "default the design's language").

A text's language picks its faces (Han is drawn in the Japanese, Korean or Chinese face by
it), shapes it and chooses its hyphenation patterns. Measuring and drawing must see the same
language, or a text is drawn in other faces than it was measured in; so the default is
filled in once, on the tree that is laid out and drawn, and on the nodes the editor measures.
"""

from __future__ import annotations

from typing import Any

from .tree import DesignTree


def node_in_language(node: Any, language: str | None) -> Any:
    """The node with data.lang set to `language` when its type has a data.lang (the element
    contract: no list of type names) and it has none; else itself."""
    if not language or "lang" not in type(node.data).model_fields or node.data.lang is not None:
        return node
    return node.model_copy(update={"data": node.data.model_copy(update={"lang": language})})


def in_design_language(tree: DesignTree) -> DesignTree:
    """The tree whose texts without data.lang are in the design's language (metadata.language);
    the tree itself when it has none, or every text names its own."""
    language = tree.metadata.language
    if not language:
        return tree
    nodes = {node_id: node_in_language(node, language) for node_id, node in tree.nodes.items()}
    if all(nodes[node_id] is node for node_id, node in tree.nodes.items()):
        return tree
    return tree.model_copy(update={"nodes": nodes})
