"""Tuvalon: seven-player Avalon on a public 9×9 map, with movement and a second discussion
heard only within range."""
