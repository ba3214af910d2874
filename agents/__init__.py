"""Bots behind one interface and the arena (random, heuristic, MCTS, trained policies)."""
