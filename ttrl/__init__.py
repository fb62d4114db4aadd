"""Test-time RL on generated variants of a hard problem — after self-play (docs/ARCHITECTURE.md §Parts). Not built yet."""
