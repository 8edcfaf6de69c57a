"""One turn of the chat: the pipeline, the agent loop, the prompt, the tools, the greeting,
the page the shopper is on, and the grounding check between the model and the shopper."""
