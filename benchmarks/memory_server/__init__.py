"""The parts of `python -m benchmarks.agent_memory_server`, a module for each thing it measures.

`common` holds the texts, the figures' format and the child processes every part shares;
`loading` fills a server's database straight in SQLite and weighs a user's loaded index;
`search` times adds and searches over HTTP, `cold` a cold user's load under other shoppers'
searches; `dialogue`, `index` and `lock` run in process, with the server's own code.
"""
