"""Test-time RL on generated variants of a hard problem — after self-play (DESIGN.md §6). Not built yet."""
