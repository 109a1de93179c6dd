"""The Resistance: Avalon, with every optional role and the three Lancelot variants."""
