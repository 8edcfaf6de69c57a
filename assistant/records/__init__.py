"""What Aisle keeps of a conversation besides memory: the chat records staff browse, their
reconciliation with memory, past visits written as live ones, the facts of a chat that
reads no memory, and forgetting a shopper."""
