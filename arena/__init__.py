"""arena: a referee and rules engines for AI bots playing hidden-role games."""

__version__ = "0.1.0"
