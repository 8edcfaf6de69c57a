"""The retrieval benchmark, one module per generated set (`shoppers`, `conversations`,
`dialogues`) beside what they share: the words and questions (`words`), the BM25 reference
line (`bm25`), storing and asking through the SDK (`store`), a shopper's visits written by
the memory policy's recording code (`policy`), ranking in process (`inprocess`) and the
figures (`report`). A set's word lists are in a module of their own (`shopper_tables`,
`conversation_tables`), and what a shopper says, a fact at a time, in `shopper_units`.
`python -m benchmarks.memory_recall` runs it."""
