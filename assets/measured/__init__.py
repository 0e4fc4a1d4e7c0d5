"""The published measured odds: each device's 10,000-trial estimate at the converged settings."""
