"""What every game shares: decisions, events and audiences, errors, seating, seeds."""
