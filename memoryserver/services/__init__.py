"""Writes of the embedded Agent Memory server, one module per noun.

`common` holds what they share (the write lock, keeping loaded indexes in step); callers
import the noun module they need (`from memoryserver.services.blocks import blocks_add`).
"""
