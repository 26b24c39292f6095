"""The sandbox's endpoints, one router per concern: rate curves, and other market data."""
