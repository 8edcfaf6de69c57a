"""The retrieval benchmark, one module per generated set (`shoppers`, `conversations`,
`dialogues`; the shoppers' word lists in `shopper_tables`, what a shopper says in
`shopper_units`) beside what they share: the words and questions (`words`), the BM25
reference line (`bm25`), storing and asking through the SDK (`store`), a shopper's visits
written by the memory policy's recording code (`policy`), ranking in process (`inprocess`)
and the figures (`report`). `python -m benchmarks.memory_recall` runs it."""
